#!/usr/bin/env bash
# The crash-loss bound of docs/RELIABILITY.md: SIGKILLs `tierscope record` KILLS times (default
# 50) at a random moment 1 to 3 s after its start, each into a fresh workspace, and measures the
# loss of each kill: the time from the newest sample stored in the workspace (any series) to
# the kill. Prints every loss and then p50 / p90 / max.
# Usage: bench/crash_loss.sh [KILLS] [INTERVAL]; TIERSCOPE_BIN picks the binary (default: the
# release build, else the dev build); SEED makes the kill moments repeat (default 1201).
set -euo pipefail
cd "$(dirname "$0")/.."
kills=${1:-50}
interval=${2:-100ms}
bin=${TIERSCOPE_BIN:-build/release/app/tierscope}
[ -x "$bin" ] || bin=build/dev/app/tierscope
work=$(mktemp -d /var/tmp/tierscope-crashloss.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
RANDOM=${SEED:-1201}
for ((i = 1; i <= kills; i++)); do
  db="$work/ws$i.db"
  "$bin" --db "$db" record --interval "$interval" -q >/dev/null 2>"$work/err$i" &
  pid=$!
  sleep "$(printf '1.%03d' $((RANDOM % 1000)))"
  sleep "0.$((RANDOM % 10))$((RANDOM % 10))"
  sleep "$((RANDOM % 2))"
  kill_ns=$(date +%s%N)
  kill -KILL "$pid"
  wait "$pid" 2>/dev/null || true
  python3 - "$db" "$kill_ns" <<'PY' >>"$work/loss.txt"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
newest = db.execute(
    "SELECT max(t) FROM (SELECT max(t_end) AS t FROM sample_recent "
    "UNION ALL SELECT max(t_end) FROM sample_chunk)").fetchone()[0]
ok = db.execute("PRAGMA integrity_check").fetchone()[0]
if newest is None or ok != "ok":
    sys.exit(f"kill {sys.argv[1]}: no sample stored, or integrity_check says {ok}")
print((int(sys.argv[2]) - newest) / 1e6)
PY
  rm -f "$db" "$db-wal" "$db-shm"
done
python3 - "$work/loss.txt" "$interval" <<'PY'
import math, sys
loss = sorted(float(x) for x in open(sys.argv[1]))
def rank(p):  # nearest rank, as a count of kills at or under the figure
    return loss[max(0, math.ceil(p / 100 * len(loss)) - 1)]
print("losses (ms):", " ".join(f"{x:.1f}" for x in loss))
print(f"{len(loss)} kills of record --interval {sys.argv[2]}: loss p50 {rank(50):.1f} ms, "
      f"p90 {rank(90):.1f} ms, max {loss[-1]:.1f} ms")
PY
