#!/usr/bin/env bash
# Wall time of a clean build with and without precompiled headers, back to back on the same
# machine (CI's 30-minute budget is mostly compiling). Usage: bench/build_time.sh [JOBS]
# Builds in a temporary directory; the checkout's build/ is left alone.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${1:-$(nproc)}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
declare -A wall
for pch in OFF ON; do
  echo "build_time: configuring and building with TIERSCOPE_PCH=$pch (-j$jobs)..." >&2
  cmake -S . -B "$scratch/$pch" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DTIERSCOPE_PCH=$pch >/dev/null
  started=$(date +%s.%N)
  ninja -C "$scratch/$pch" -j"$jobs" >"$scratch/$pch.log" 2>&1 || {
    tail -20 "$scratch/$pch.log" >&2
    exit 1
  }
  wall[$pch]=$(echo "$(date +%s.%N) - $started" | bc)
  rm -rf "${scratch:?}/$pch"
done
printf 'dev build (RelWithDebInfo, -j%s): without PCH %.0f s, with PCH %.0f s, ratio %.2f\n' \
  "$jobs" "${wall[OFF]}" "${wall[ON]}" "$(echo "${wall[ON]} / ${wall[OFF]}" | bc -l)"
