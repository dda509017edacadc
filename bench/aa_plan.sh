#!/usr/bin/env bash
# A/A through a real plan: two arms that are the same simulator with the same settings,
# `tierscope run` end to end (engines started and stopped by the runner, ABBA order, the
# load client, the comparison), TRIALS times with different prompt seeds. Counts how often the
# verdict line names a side; the design says at most 5 %.
#   bench/aa_plan.sh TIERSCOPE_BINARY [TRIALS] [SCRATCH_DIR]
set -euo pipefail
bin=$(realpath "$1")
trials=${2:-100}
dir=${3:-$(mktemp -d /tmp/tierscope-aa-XXXXXX)}
mkdir -p "$dir"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
sided=0 none=0 other=0
for trial in $(seq 1 "$trials"); do
  plan="$dir/aa-$trial.toml"
  arm() {
    cat <<ARM
[[arm]]
label = "$1"
path = "$dir/$1"
engine_url = "http://127.0.0.1:$port"
engine_start = 'exec "\$TIERSCOPE" sim-engine --port $port --prefill-tokens-per-s 4000 --decode-tokens-per-s 200'
ARM
  }
  {
    echo "name = \"aa\""
    echo "repetitions = 3"
    echo "seed = $trial"
    arm a
    arm b
    cat <<'WL'
[[workload]]
kind = "load"
requests = 16
input_len = 256
output_len = 16
concurrency = 4
WL
  } >"$plan"
  out=$("$bin" --db "$dir/aa-$trial.db" run "$plan" 2>&1 || true)
  line=$(grep -m1 "^Verdict: " <<<"$out" || true)
  case "$line" in
    "Verdict: A is better"* | "Verdict: B is better"* | "Verdict: Mixed"*) sided=$((sided + 1)) ;;
    "Verdict: No significant difference"*) none=$((none + 1)) ;;
    *) other=$((other + 1)); echo "trial $trial: no verdict line:" >&2; tail -5 <<<"$out" >&2 ;;
  esac
  echo "trial $trial: ${line:-?}"
  rm -f "$dir/aa-$trial.db" "$dir/aa-$trial.db-wal" "$dir/aa-$trial.db-shm"
done
echo "A/A through a plan: $trials trials, a side named in $sided, no difference in $none, other $other"
