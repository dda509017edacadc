#!/usr/bin/env bash
# The 4,000-stream soak of docs/RELIABILITY.md: `tierscope load` keeps 4,000 streams open
# against the engine simulator for DURATION (default 10m). It samples the RSS of the client and
# of the simulator every 10 s and checks, at the end, that every request the client issued is
# in the store.
# Usage: bench/soak.sh [DURATION] [STREAMS]; TIERSCOPE_BIN picks the binary (default: the
# release build, else the dev build).
set -euo pipefail
cd "$(dirname "$0")/.."
duration=${1:-10m}
streams=${2:-4000}
bin=${TIERSCOPE_BIN:-build/release/app/tierscope}
[ -x "$bin" ] || bin=build/dev/app/tierscope
work=$(mktemp -d /var/tmp/tierscope-soak.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
ulimit -n 20000
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
# 16 tokens at 2 tok/s: each stream lives about 8 s, so the run keeps opening new ones (about
# 500 a second). Connections close after each response: cpp-httplib would poll every idle
# keep-alive connection from its own thread, and 4,000 of those starve a 2-core machine.
"$bin" sim-engine --port "$port" --max-concurrency "$streams" --decode-tokens-per-s 2 \
  --prefill-tokens-per-s 100000 --close-connections >"$work/sim.log" 2>&1 &
sim=$!
sleep 2
"$bin" --db "$work/soak.db" load --url "http://127.0.0.1:$port" --model tierscope-sim \
  --concurrency "$streams" --duration "$duration" --input-len 32 --output-len 16 \
  --out "$work/load.json" >"$work/load.out" 2>"$work/load.err" &
load=$!
rss() { awk '/VmRSS/ {print int($2/1024)}' "/proc/$1/status" 2>/dev/null || echo 0; }
echo "elapsed_s client_rss_mb sim_rss_mb" >"$work/rss.txt"
start=$(date +%s)
while kill -0 "$load" 2>/dev/null; do
  echo "$(( $(date +%s) - start )) $(rss "$load") $(rss "$sim")" >>"$work/rss.txt"
  sleep 10
done
status=0
wait "$load" || status=$?
cat "$work/rss.txt"
tail -n 30 "$work/load.out"
[ "$status" -eq 0 ] || { echo "load exited with $status:"; cat "$work/load.err"; }
stored=$(sqlite3 "$work/soak.db" "SELECT count(*) FROM request")
ok=$(sqlite3 "$work/soak.db" "SELECT count(*) FROM request WHERE status = 200 AND error IS NULL")
issued=$(python3 -c "import json; print(json.load(open('$work/load.json'))['issued_requests'])")
echo "requests issued $issued, in the store $stored ($ok ok): $(( issued - stored )) lost"
# Growth from the end of warm-up (the first minute) to the peak after it, per process. The
# last sample is left out: it is taken while the client drains and writes its summary.
for col in 2 3; do
  awk -v col="$col" 'NR > 1 && $1 >= 60 {n++; v[n] = $col}
    END {if (n < 2) {print "too short for a warm-up figure"; exit}
         base = v[1]; peak = base; for (i = 1; i < n; i++) if (v[i] > peak) peak = v[i]
         printf "%s RSS after warm-up %d MB, peak after it %d MB: growth %.1f %%\n",
                col == 2 ? "client" : "simulator", base, peak, 100 * (peak - base) / base}' \
    "$work/rss.txt"
done
