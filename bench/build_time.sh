#!/usr/bin/env bash
# Wall time of two clean builds that differ in one build option, back to back on the same
# machine (CI's 40-minute budget is mostly compiling). The checkout's build/ is left alone.
#   bench/build_time.sh [JOBS]         the dev build without and with precompiled headers
#   bench/build_time.sh JOBS unity     the asan preset's product (no suites) compiled file by
#                                      file and as unity builds (TIERSCOPE_UNITY)
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${1:-$(nproc)}
what=${2:-pch}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
case $what in
pch)
  option=TIERSCOPE_PCH
  configure=(-G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo)
  label="dev build (RelWithDebInfo, -j$jobs)"
  ;;
unity)
  option=TIERSCOPE_UNITY
  configure=(--preset asan -DTIERSCOPE_BUILD_TESTS=OFF -DTIERSCOPE_BUILD_BENCH=OFF)
  label="asan preset, product only (-j$jobs)"
  ;;
*)
  echo "build_time: the second argument is pch or unity, not '$what'" >&2
  exit 2
  ;;
esac
declare -A wall
for value in OFF ON; do
  echo "build_time: configuring and building with $option=$value (-j$jobs)..." >&2
  cmake -S . -B "$scratch/$value" "${configure[@]}" -D$option=$value >/dev/null
  started=$(date +%s.%N)
  ninja -C "$scratch/$value" -j"$jobs" >"$scratch/$value.log" 2>&1 || {
    tail -20 "$scratch/$value.log" >&2
    exit 1
  }
  wall[$value]=$(echo "$(date +%s.%N) - $started" | bc)
  rm -rf "${scratch:?}/$value"
done
printf '%s: %s=OFF %.0f s, %s=ON %.0f s, ratio %.2f\n' "$label" "$option" "${wall[OFF]}" \
  "$option" "${wall[ON]}" "$(echo "${wall[ON]} / ${wall[OFF]}" | bc -l)"
