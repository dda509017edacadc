#!/usr/bin/env bash
# Quick start 1: install what is missing, build (release), and run the main job: the GUI,
# which opens the default workspace and starts a live view of this machine. Without a display
# (no DISPLAY or WAYLAND_DISPLAY) it records 30 s headless instead and prints a summary.
# Extra arguments go to `tierscope gui`, or to `tierscope record` when headless.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release --target tierscope
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  exec build/release/app/tierscope gui "$@"
fi
echo "run: no display, so recording 30 s headless (the GUI needs DISPLAY or WAYLAND_DISPLAY;" \
  "try xvfb-run -a scripts/run.sh)" >&2
exec build/release/app/tierscope record --duration 30s --label quickstart "$@"
