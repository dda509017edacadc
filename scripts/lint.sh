#!/usr/bin/env bash
# clang-tidy-14 with the repository's .clang-tidy over the sources in compile_commands.json of
# a build (default build/dev; configure it first). Lints every source, or only the files given:
#   scripts/lint.sh                      every product folder (app, collectors, core, experiments, loadgen, remote, simulator, ui, workloads)
#   scripts/lint.sh core/compare/Gate.cpp ...    those files
#   scripts/lint.sh --changed            the product .cpp files changed since the merge base
#                                        with main (the previous commit on main), as CI does
#   LINT_BUILD=build/asan LINT_JOBS=4 scripts/lint.sh
# Fails when a check fires. CI lints only the changed files: a full run takes CPU-minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${LINT_BUILD:-build/dev}
jobs=${LINT_JOBS:-2}
tidy=${CLANG_TIDY:-clang-tidy-14}
command -v "$tidy" >/dev/null || {
  echo "lint: $tidy not found (apt-get install clang-tidy-14)" >&2
  exit 2
}
[ -f "$build/compile_commands.json" ] || {
  echo "lint: no $build/compile_commands.json (cmake --preset dev first)" >&2
  exit 2
}
if [ "${1:-}" = --changed ]; then
  base=$(scripts/change-base.sh)
  [ -n "$base" ] || {
    echo "lint: no main and no parent commit to compare with; skipped" >&2
    exit 0
  }
  # Only sources the build compiles (a deleted or renamed-away file is not linted).
  mapfile -t files < <(git diff --name-only --diff-filter=d "$base" -- 'app/*.cpp' \
    'collectors/*.cpp' 'agent/*.cpp' 'core/*.cpp' 'ui/*.cpp' 'workloads/*.cpp' 'loadgen/*.cpp' \
    'simulator/*.cpp' 'experiments/*.cpp' 'remote/*.cpp')
  if [ ${#files[@]} -eq 0 ]; then
    echo "lint: no product source changed since $(git rev-parse --short "$base")"
    exit 0
  fi
  echo "lint: ${#files[@]} changed file(s) since $(git rev-parse --short "$base")"
elif [ $# -gt 0 ]; then
  files=("$@")
else
  # The product, not the test suites: a suite's sources need its moc output, so a build of
  # every suite first (name one to lint it).
  mapfile -t files < <(git ls-files 'app/*.cpp' 'agent/*.cpp' 'collectors/*.cpp' 'core/*.cpp' 'ui/*.cpp' \
    'workloads/*.cpp' 'loadgen/*.cpp' 'simulator/*.cpp' 'experiments/*.cpp' 'remote/*.cpp')
fi
# A unity build (TIERSCOPE_UNITY, the asan preset) compiles its libraries' files eight to a
# unit, and its compilation database names the units, not the files: each file gets its unit's
# command, with the file in place of the unit.
database=$build
if grep -q '/Unity/unity_[0-9]*_cxx\.cxx"' "$build/compile_commands.json"; then
  database=$(mktemp -d)
  trap 'rm -rf "$database"' EXIT
  awk '
    function emit(file, command) {
      printf "%s{\n  \"directory\": \"%s\",\n  \"command\": \"%s\",\n  \"file\": \"%s\"\n}",
        (n++ ? ",\n" : ""), dir, command, file
    }
    BEGIN { print "[" }
    /^  "directory": "/ { dir = substr($0, 17); sub(/",?$/, "", dir) }
    /^  "command": "/ { cmd = substr($0, 15); sub(/",?$/, "", cmd) }
    /^  "file": "/ {
      file = substr($0, 12); sub(/"$/, "", file)
      if (file !~ /\/Unity\/unity_[0-9]+_cxx\.cxx$/) { emit(file, cmd); next }
      while ((getline line < file) > 0) {
        if (line !~ /^#include "/) continue
        source = line; sub(/^#include "/, "", source); sub(/"$/, "", source)
        at = index(cmd, file)
        emit(source, at ? substr(cmd, 1, at - 1) source substr(cmd, at + length(file)) : cmd)
      }
      close(file)
    }
    END { print "\n]" }' "$build/compile_commands.json" >"$database/compile_commands.json"
fi
# GCC's flags that clang does not know are warnings, not errors.
printf '%s\n' "${files[@]}" |
  xargs -r -P "$jobs" -n 1 "$tidy" -p "$database" --quiet --extra-arg=-Wno-unknown-warning-option
