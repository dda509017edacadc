#!/usr/bin/env bash
# Quick start 2: install what is missing, build the suite with ASan + UBSan (asan preset, clang 14) and run
# every test under ctest. After ctest, any process the suite started that is still alive fails
# the run, listed. TIERSCOPE_TEST_PRESET=dev runs the same suite on the optimised dev build
# instead (quicker to run, and it builds the benchmarks).
#
# One pass, not two: the sanitizer build runs every test the dev build runs and checks memory
# and undefined behaviour as well, and CI has 40 minutes on 2 cores (see docs/PERFORMANCE.md).
set -euo pipefail
cd "$(dirname "$0")/.."

# ctest in a session of its own: whatever the tests start stays in that session unless it
# detaches on purpose, so what is left of it afterwards is a leak. Three suites at a time on 2
# cores: with two, a quarter of the CPU idled while suites waited on servers and child
# processes (docs/PERFORMANCE.md, "Build time").
run_ctest() {
  local preset=$1 sidfile status=0
  sidfile=$(mktemp)
  setsid --wait bash -c 'echo $$ > "$0"; exec ctest --preset "$1" -j3' "$sidfile" "$preset" ||
    status=$?
  local sid
  sid=$(cat "$sidfile")
  rm -f "$sidfile"
  sleep 2 # what was just told to stop gets to stop
  local left
  left=$(ps -e -o pid=,sid=,stat=,args= | awk -v s="$sid" '$2 == s && $3 !~ /^Z/')
  if [ -n "$left" ]; then
    echo "test: processes the $preset suite started are still running:" >&2
    echo "$left" >&2
    awk '{print $1}' <<<"$left" | xargs -r kill -9 2>/dev/null || true
    return 1
  fi
  return "$status"
}

preset=${TIERSCOPE_TEST_PRESET:-asan}
case $preset in
dev | asan) ;;
*)
  echo "test: TIERSCOPE_TEST_PRESET must be dev or asan, not '$preset'" >&2
  exit 2
  ;;
esac
stage_start=$SECONDS
scripts/install-deps.sh --tests
echo "test: stage install took $((SECONDS - stage_start)) s" >&2
# A full disk fails tests far from the cause (a CI machine once had 260 MB left after the
# build): say so first. The sanitizer build takes about 5 GB, the dev build 7 GB, and the
# storage tests refuse to leave under 2.7 GB free.
free_kb=$(df -Pk . | awk 'NR == 2 {print $4}')
if [ "${free_kb:-0}" -lt $((10 * 1024 * 1024)) ]; then
  echo "test: warning: $((free_kb / 1024)) MB free here; the $preset build and the suite need about 10 GB" >&2
fi
# Each stage's wall time, so a slow CI run says where its minutes went.
stage() {
  local name=$1 start=$SECONDS status=0
  shift
  "$@" || status=$?
  echo "test: stage $name took $((SECONDS - start)) s" >&2
  return "$status"
}
# The real-engine tests' engine (npm packages, Node 20 where needed, the model) installs from the
# network while the build compiles; the tests find it cached. Its own messages come with the
# test that needs it, if it failed.
engine_log=$(mktemp)
tests/fixtures/llama-engine/setup.sh >"$engine_log" 2>&1 &
engine_setup=$!
trap 'kill "$engine_setup" 2>/dev/null || true; rm -f "$engine_log"' EXIT
stage configure cmake --preset "$preset" >/dev/null
stage build cmake --build --preset "$preset"
wait "$engine_setup" || echo "test: the test engine's setup failed; its tests will say why" >&2
rm -f "$engine_log"
stage ctest run_ctest "$preset"
