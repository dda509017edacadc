#!/usr/bin/env bash
# Quick start 2: install what is missing, build (dev preset), and run every test under ctest;
# then build the same suite with ASan + UBSan (asan preset) and run it again.
# TIERSCOPE_SKIP_ASAN=1 skips the sanitizer pass for a quicker local run; CI never sets it.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset dev >/dev/null
cmake --build --preset dev
ctest --preset dev -j2
if [ "${TIERSCOPE_SKIP_ASAN:-0}" = 1 ]; then
  echo "test: TIERSCOPE_SKIP_ASAN=1, so the ASan + UBSan pass was skipped" >&2
  exit 0
fi
cmake --preset asan >/dev/null
cmake --build --preset asan
ctest --preset asan -j2
