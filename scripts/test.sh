#!/usr/bin/env bash
# Quick start 2: install what is missing, build (dev preset), and run every test under ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset dev >/dev/null
cmake --build --preset dev
ctest --preset dev -j2
