#!/usr/bin/env bash
# Writes the README's screenshots to docs/images/: the live view of this machine while the
# engine simulator serves a load and a KV-restore workload reads the disk, then that same
# session opened from the browser. Runs under Xvfb; needs the release build (scripts/run.sh
# builds it) and about ten minutes. SHOTS=views makes only the first-screen, load-session,
# experiment-session, range, GPUs, compare and overlay pictures (at 1280x720 and 1920x1080,
# light and dark).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${TIERSCOPE_BIN:-build/release/app/tierscope} # TIERSCOPE_BIN: another build
[ -x "$bin" ] || { echo "screenshots: build first (cmake --preset release && cmake --build --preset release)" >&2; exit 1; }
work=$(mktemp -d /var/tmp/tierscope-shots.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
db="$work/demo.db"
mkdir -p "$work/kv" "$work/chunks" docs/images
export QT_QPA_PLATFORM=xcb XDG_RUNTIME_DIR="$work"

if [ "${SHOTS:-all}" = all ]; then
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$bin" sim-engine --port "$port" --kv-dir "$work/kv" --decode-tokens-per-s 40 --max-concurrency 16 >/dev/null &
"$bin" --db "$db" storage prepare kv-restore --path "$work/chunks" --geometry Llama-3.1-8B \
  --tokens 2048 --prefixes 8 --quiet
(
  sleep 6
  "$bin" --db "$work/load.db" load --url "http://127.0.0.1:$port" --model tierscope-sim \
    --concurrency 12 --duration 30s --dataset shared-prefix --users 12 --system-tokens 1000 \
    --rounds 8 --output-len 32 >/dev/null 2>&1
) &
(
  sleep 14
  "$bin" --db "$work/load.db" storage run kv-restore --path "$work/chunks" --concurrency 4 \
    --quiet >/dev/null
) &
xvfb-run -a -s "-screen 0 1600x1000x24" "$bin" --db "$db" gui --window 1m \
  --engine "http://127.0.0.1:$port/metrics" --screenshot docs/images/live.png --after 40s
session=$(sqlite3 "$db" "SELECT max(id) FROM session")
xvfb-run -a -s "-screen 0 1600x1000x24" "$bin" --db "$db" gui --session "$session" \
  --screenshot docs/images/session.png --after 4s
echo "wrote docs/images/live.png and docs/images/session.png"

# The compare view over a small disk-vs-/dev/shm experiment (model load), on the timelines tab.
plan="$work/plan.toml"
sed -e 's|repetitions = 3|repetitions = 3|' -e 's|warmup = 1|warmup = 0|' \
  -e "s|/var/tmp/tierscope-plan/disk|$work/plan-disk|" -e "s|/dev/shm/tierscope-plan/shm|/dev/shm/tierscope-shots-$$|" \
  -e 's|concurrency = \[4, 8\]|concurrency = [8]|' resources/plans/disk-vs-shm.toml > "$plan"
"$bin" --db "$work/plan.db" run "$plan" >/dev/null 2>&1 || true
rm -rf "/dev/shm/tierscope-shots-$$"
xvfb-run -a -s "-screen 0 1600x1000x24" "$bin" --db "$work/plan.db" gui --no-record \
  --compare arm:disk-vs-shm/kv-restore@c8/disk arm:disk-vs-shm/kv-restore@c8/shm \
  --screenshot docs/images/compare.png --after 6s
"$bin" --db "$work/plan.db" export chart arm:disk-vs-shm/kv-restore@c8/disk \
  arm:disk-vs-shm/kv-restore@c8/shm --chart timelines --size 1200x520 --out docs/images/timelines.png
echo "wrote docs/images/compare.png and docs/images/timelines.png"
fi

# The views of issue 22, at two screen sizes in light and dark: the first screen (stat tiles
# and the charts while a load and a KV-restore workload run), a load session opened from the
# browser, and an experiment session with its runs shaded by arm.
theme_dir() { # a scratch QSettings home with the theme set, one per size: no dock sizes carried over
  local dir="$work/config-$1-$2"
  mkdir -p "$dir/tierscope"
  printf '[General]\ntheme=%s\n' "$1" > "$dir/tierscope/tierscope.conf"
  echo "$dir"
}
vport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
mkdir -p "$work/vkv" "$work/vchunks"
"$bin" sim-engine --port "$vport" --kv-dir "$work/vkv" --decode-tokens-per-s 40 --max-concurrency 16 >/dev/null &
"$bin" --db "$work/views.db" storage prepare kv-restore --path "$work/vchunks" --geometry Llama-3.1-8B \
  --tokens 2048 --prefixes 8 --quiet
vplan="$work/vplan.toml"
sed -e 's|warmup = 1|warmup = 1|' -e 's|repetitions = 4|repetitions = 2|' \
  -e "s|/var/tmp/tierscope-plan/disk|$work/vplan-disk|" -e "s|/dev/shm/tierscope-plan/shm|/dev/shm/tierscope-views-$$|" \
  -e 's|concurrency = \[4, 8\]|concurrency = [8]|' resources/plans/disk-vs-shm.toml > "$vplan"
"$bin" --db "$work/vplan.db" run "$vplan" >/dev/null 2>&1 || true
rm -rf "/dev/shm/tierscope-views-$$"
nvml=""
if cmake --build "$(dirname "$(dirname "$bin")")" --target fake_nvml >/dev/null 2>&1; then
  nvml=$(realpath "$(dirname "$(dirname "$bin")")/tests/libfake_nvml.so")
else
  echo "screenshots: no fake_nvml target in this build: no GPU pictures" >&2
fi
for size in 1280x720 1920x1080; do
  for theme in light dark; do
    cfg=$(theme_dir "$theme" "$size")
    (
      sleep 3
      "$bin" --db "$work/vload.db" load --url "http://127.0.0.1:$vport" --model tierscope-sim \
        --concurrency 12 --duration 20s --dataset shared-prefix --users 12 --system-tokens 1000 \
        --rounds 8 --output-len 32 >/dev/null 2>&1
    ) &
    (
      sleep 8
      "$bin" --db "$work/vload.db" storage run kv-restore --path "$work/vchunks" --concurrency 4 \
        --quiet >/dev/null 2>&1
    ) &
    XDG_CONFIG_HOME="$cfg" xvfb-run -a -s "-screen 0 ${size}x24" "$bin" --db "$work/views.db" gui \
      --window 1m --engine "http://127.0.0.1:$vport/metrics" \
      --screenshot "docs/images/first-screen-$size-$theme.png" --after 22s
    wait_for_load=$(jobs -p | tail -2)
    wait $wait_for_load 2>/dev/null || true
    load=$(sqlite3 "$work/vload.db" "SELECT min(id) FROM session")
    XDG_CONFIG_HOME="$cfg" xvfb-run -a -s "-screen 0 ${size}x24" "$bin" --db "$work/vload.db" gui \
      --session "$load" --screenshot "docs/images/load-session-$size-$theme.png" --after 4s
    exp=$(sqlite3 "$work/vplan.db" "SELECT max(id) FROM session")
    XDG_CONFIG_HOME="$cfg" xvfb-run -a -s "-screen 0 ${size}x24" "$bin" --db "$work/vplan.db" gui \
      --session "$exp" --screenshot "docs/images/experiment-session-$size-$theme.png" --after 4s
    # A range of the experiment read like Perfetto: the Range dock's figures, the phases above.
    XDG_CONFIG_HOME="$cfg" xvfb-run -a -s "-screen 0 ${size}x24" "$bin" --db "$work/vplan.db" gui \
      --no-record --session "$exp" --range 12s..24s \
      --screenshot "docs/images/range-$size-$theme.png" --after 6s
    # The GPUs dock needs a GPU: the tests' fake NVML (two simulated H100s, this process on
    # the first), loaded through the real dlopen path. The pictures say so in the guide.
    if [ -n "$nvml" ]; then
      XDG_CONFIG_HOME="$cfg" TIERSCOPE_NVML_LIBRARY="$nvml" xvfb-run -a -s "-screen 0 ${size}x24" \
        "$bin" --db "$work/gpu.db" gui --window 1m \
        --screenshot "docs/images/gpu-$size-$theme.png" --after 12s
    fi
    XDG_CONFIG_HOME="$cfg" xvfb-run -a -s "-screen 0 ${size}x24" "$bin" --db "$work/vplan.db" gui \
      --no-record --compare arm:disk-vs-shm/kv-restore@c8/disk arm:disk-vs-shm/kv-restore@c8/shm \
      --screenshot "docs/images/compare-$size-$theme.png" --after 6s
    XDG_CONFIG_HOME="$cfg" xvfb-run -a -s "-screen 0 ${size}x24" "$bin" --db "$work/vplan.db" gui \
      --no-record --overlay arm:disk-vs-shm/kv-restore@c8/disk arm:disk-vs-shm/kv-restore@c8/shm \
      --screenshot "docs/images/overlay-$size-$theme.png" --after 6s
  done
done
echo "wrote docs/images/{first-screen,load-session,experiment-session,range,gpu,compare,overlay}-{1280x720,1920x1080}-{light,dark}.png"
