#!/usr/bin/env bash
# Builds the libFuzzer targets with clang-14 (ASan + UBSan) and runs each for a fixed number of
# executions, seeded with the test fixtures. Usage: scripts/fuzz.sh [RUNS] (default 1000000).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-1000000}
if ! dpkg -s clang-14 libfuzzer-14-dev >/dev/null 2>&1; then
  as_root=(); [ "$(id -u)" -ne 0 ] && as_root=(sudo)
  "${as_root[@]}" apt-get install -y -qq clang-14 libfuzzer-14-dev
fi
CC=clang-14 CXX=clang++-14 cmake -S . -B build/fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DTIERSCOPE_FUZZ=ON -DTIERSCOPE_BUILD_TESTS=OFF -DTIERSCOPE_BUILD_BENCH=OFF >/dev/null
cmake --build build/fuzz --target prometheus_parser_fuzzer
corpus=build/fuzz/corpus/prometheus
mkdir -p "$corpus"
cp tests/fixtures/engine/*.txt "$corpus"/
build/fuzz/fuzz/prometheus_parser_fuzzer -runs="$runs" -max_len=65536 "$corpus"
