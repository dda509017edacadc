#!/usr/bin/env bash
# Runs the whole suite N times (default 5) with stress-ng busy beside it, as CI's parallelism
# (ctest -j3) on a busy machine: a test that asserts the machine's speed fails here. Needs a
# built tree (the asan preset by default) and stress-ng (apt-get install stress-ng).
#   scripts/stress-suite.sh [BUILD_DIR] [RUNS]
# Prints one line per run: exit status, wall time, failed suites, and any process a run left.
set -uo pipefail
build=${1:-build/asan}
runs=${2:-5}
command -v stress-ng >/dev/null || { echo "stress-suite: stress-ng not found" >&2; exit 2; }
[ -f "$build/CTestTestfile.cmake" ] || { echo "stress-suite: no test tree in $build" >&2; exit 2; }
build=$(cd "$build" && pwd)
for i in $(seq 1 "$runs"); do
  stress-ng --cpu 2 --cpu-load 60 --timeout 3600s >/dev/null 2>&1 &
  stress=$!
  start=$SECONDS
  log=$(mktemp)
  (cd "$build" && setsid --wait ctest -j3 --output-on-failure >"$log" 2>&1)
  status=$?
  kill "$stress" 2>/dev/null
  wait "$stress" 2>/dev/null
  failed=$(grep -E '\*\*\*(Failed|Timeout|Exception)' "$log" | awk '{print $4}' | tr '\n' ' ')
  left=$(ps -e -o pid=,args= | grep -F "$build/" | grep -v grep || true)
  echo "run $i: exit $status, $((SECONDS - start)) s, failed: ${failed:-none}${left:+, left running: $left}"
  [ "$status" -eq 0 ] || echo "  log: $log"
  [ "$status" -ne 0 ] || rm -f "$log"
done
