#!/usr/bin/env bash
# Builds the libFuzzer targets with clang-14 (ASan + UBSan) and runs each for a fixed number of
# executions, seeded with the test fixtures. Usage: scripts/fuzz.sh [RUNS] [TARGET...]
# (default 1000000 runs of every target; FUZZ_MAX_LEN caps the input size, default 65536).
# A crash stops the script and leaves the input as crash-* in the current directory: add it to
# tests/fixtures as a regression case.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-1000000}
max_len=${FUZZ_MAX_LEN:-65536} # FUZZ_MAX_LEN=4096 keeps slow targets near their top speed
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(prometheus_parser_fuzzer sse_stream_fuzzer plan_parser_fuzzer
  vllm_bench_import_fuzzer prometheus_api_fuzzer remote_stream_fuzzer fio_import_fuzzer
  aiperf_import_fuzzer guidellm_import_fuzzer)
if ! dpkg -s clang-14 libfuzzer-14-dev >/dev/null 2>&1; then
  as_root=(); [ "$(id -u)" -ne 0 ] && as_root=(sudo)
  "${as_root[@]}" apt-get install -y -qq clang-14 libfuzzer-14-dev
fi
CC=clang-14 CXX=clang++-14 cmake -S . -B build/fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DTIERSCOPE_FUZZ=ON -DTIERSCOPE_BUILD_TESTS=OFF -DTIERSCOPE_BUILD_BENCH=OFF >/dev/null
cmake --build build/fuzz --target "${targets[@]}"

seed() { # target -> fixture files
  case "$1" in
    prometheus_parser_fuzzer) ls tests/fixtures/engine/*.txt tests/fixtures/prometheus/agent-*.txt ;;
    sse_stream_fuzzer) ls tests/fixtures/sse/*.txt ;;
    plan_parser_fuzzer) ls resources/plans/*.toml ;;
    vllm_bench_import_fuzzer) ls tests/fixtures/vllm-bench/* ;;
    prometheus_api_fuzzer) ls tests/fixtures/prometheus/query_*.txt ;;
    remote_stream_fuzzer) ls tests/fixtures/remote-stream/*.jsonl ;;
    fio_import_fuzzer) ls tests/fixtures/fio/*.json ;;
    aiperf_import_fuzzer) ls tests/fixtures/aiperf/aiperf-0.1-concurrency4-assembled/* ;;
    guidellm_import_fuzzer) ls tests/fixtures/guidellm/*.json ;;
  esac
}
for t in "${targets[@]}"; do
  corpus=build/fuzz/corpus/$t
  mkdir -p "$corpus"
  seed "$t" | xargs -r cp -t "$corpus"/
  echo "== $t: $runs runs" >&2
  start=$(date +%s)
  build/fuzz/fuzz/$t -runs="$runs" -max_len="$max_len" -rss_limit_mb=2048 "$corpus" 2>&1 | tail -3
  echo "== $t: $runs runs, 0 crashes, $(( $(date +%s) - start )) s" >&2
done
