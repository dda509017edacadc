#!/usr/bin/env bash
# Quick start 1: install what is missing, build (release), and run the main job.
# Until the GUI lands, the main job is a 30 s headless recording of this machine into the
# default workspace, followed by a summary. Extra arguments go to `tierscope record`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release --target tierscope
exec build/release/app/tierscope record --duration 30s --label quickstart "$@"
