#!/usr/bin/env bash
# Quick start 2: install what is missing, build (dev preset), and run every test under ctest;
# then build the same suite with ASan + UBSan (asan preset) and run it again. After each ctest,
# any process the suite started that is still alive fails the run, listed.
# TIERSCOPE_SKIP_ASAN=1 skips the sanitizer pass for a quicker local run; CI never sets it.
set -euo pipefail
cd "$(dirname "$0")/.."

# ctest in a session of its own: whatever the tests start stays in that session unless it
# detaches on purpose, so what is left of it afterwards is a leak.
run_ctest() {
  local preset=$1 sidfile status=0
  sidfile=$(mktemp)
  setsid --wait bash -c 'echo $$ > "$0"; exec ctest --preset "$1" -j2' "$sidfile" "$preset" ||
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

scripts/install-deps.sh
cmake --preset dev >/dev/null
cmake --build --preset dev
run_ctest dev
if [ "${TIERSCOPE_SKIP_ASAN:-0}" = 1 ]; then
  echo "test: TIERSCOPE_SKIP_ASAN=1, so the ASan + UBSan pass was skipped" >&2
  exit 0
fi
cmake --preset asan >/dev/null
cmake --build --preset asan
run_ctest asan
