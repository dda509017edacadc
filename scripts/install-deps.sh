#!/usr/bin/env bash
# Installs the Debian 12 packages tierscope builds, tests and runs with; does nothing when all
# are present already. Needs root or sudo.
#
#   --tests   also what the test build and the real-engine tests need: clang 14 and its
#             sanitizer runtime (the asan preset compiles with clang: 0.42 of GCC's time for the
#             same steps, docs/PERFORMANCE.md, "Build time"), curl and the CA store
#             (tests/fixtures/llama-engine/setup.sh takes Node 20 and npm from the npm registry
#             where no Node 20 is installed, as on Debian 12, whose nodejs is 18).
set -euo pipefail

tests=false
for arg in "$@"; do
  case $arg in
  --tests) tests=true ;;
  *)
    echo "install-deps: unknown argument '$arg' (only --tests)" >&2
    exit 2
    ;;
  esac
done

packages=(
  cmake ninja-build g++ pkg-config mold
  qt6-base-dev qt6-charts-dev qt6-svg-dev libqt6opengl6-dev libgl-dev
  libsqlite3-dev sqlite3 libspdlog-dev nlohmann-json3-dev libcli11-dev
  libnvme-dev libjson-c-dev librocm-smi-dev libcurl4-openssl-dev liburing-dev
  libtomlplusplus-dev libcpp-httplib-dev libbenchmark-dev
  util-linux procps fio xvfb xauth prometheus prometheus-node-exporter
  openssh-client openssh-server
  zsh groff-base clang-format-14 clang-tidy-14
)

missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if $tests; then
  for p in clang-14 libclang-rt-14-dev curl ca-certificates; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
fi
[ ${#missing[@]} -eq 0 ] && exit 0

as_root=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  as_root=(sudo)
fi
echo "install-deps: installing ${missing[*]}" >&2
"${as_root[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
