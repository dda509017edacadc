#!/usr/bin/env bash
# The 4,000-stream soak of docs/RELIABILITY.md: `tierscope load` keeps 4,000 streams open
# against the engine simulator for DURATION (default 10m). It samples the client's RSS every
# 10 s and checks, at the end, that every request issued is in the store.
# Usage: bench/soak.sh [DURATION] [STREAMS]; needs a built tierscope (build/release or dev).
set -euo pipefail
cd "$(dirname "$0")/.."
duration=${1:-10m}
streams=${2:-4000}
bin=build/release/app/tierscope
[ -x "$bin" ] || bin=build/dev/app/tierscope
work=$(mktemp -d /var/tmp/tierscope-soak.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
ulimit -n 20000
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
# 16 tokens at 8 tok/s: each stream lives about 2 s, so the run keeps opening new ones.
"$bin" sim-engine --port "$port" --max-concurrency "$streams" --decode-tokens-per-s 8 \
  --prefill-tokens-per-s 100000 >"$work/sim.log" 2>&1 &
sleep 2
"$bin" --db "$work/soak.db" load --url "http://127.0.0.1:$port" --model tierscope-sim \
  --concurrency "$streams" --duration "$duration" --input-len 32 --output-len 16 \
  >"$work/load.out" 2>"$work/load.err" &
load=$!
echo "elapsed_s rss_mb" >"$work/rss.txt"
start=$(date +%s)
while kill -0 "$load" 2>/dev/null; do
  rss=$(awk '/VmRSS/ {print int($2/1024)}' /proc/$load/status 2>/dev/null || true)
  [ -n "$rss" ] && echo "$(( $(date +%s) - start )) $rss" >>"$work/rss.txt"
  sleep 10
done
wait "$load" || true
cat "$work/rss.txt"
tail -n 25 "$work/load.out"
issued=$(sqlite3 "$work/soak.db" "SELECT count(*) FROM request")
ok=$(sqlite3 "$work/soak.db" "SELECT count(*) FROM request WHERE status = 200 AND error IS NULL")
echo "requests in the store: $issued ($ok ok)"
# RSS after warm-up (the first minute) against the end.
awk 'NR > 1 && $1 >= 60 && !base {base = $2} NR > 1 {last = $2; if ($2 > peak) peak = $2}
     END {if (base) printf "RSS after warm-up %d MB, at the end %d MB, peak %d MB: growth %.1f %%\n",
          base, last, peak, 100 * (peak - base) / base}' "$work/rss.txt"
