#!/usr/bin/env bash
# Checks that the C++ lines changed since the merge base with main (or since the previous
# commit when HEAD is main, as on a clean checkout of main) follow .clang-format, with
# clang-format-14. Only changed lines: files formatted before .clang-format stay as they are
# until someone edits them. Fails printing the command that fixes it. Cheap: one git diff and
# clang-format on the changed files.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v git-clang-format-14 >/dev/null || {
  echo "check-format: git-clang-format-14 not found (apt-get install clang-format-14)" >&2
  exit 2
}

base=$(scripts/change-base.sh)
if [ -z "$base" ]; then
  echo "check-format: no main and no parent commit to compare with (a shallow clone?); skipped" >&2
  exit 0
fi

# Against the working tree: a local run sees uncommitted edits too.
format=(git-clang-format-14 --binary clang-format-14 --extensions cpp,h,hpp,cc)
diff=$("${format[@]}" --diff "$base" -- 2>&1) || {
  echo "$diff" >&2
  exit 2
}
case "$diff" in
"no modified files to format" | "clang-format did not modify any files" | "")
  exit 0
  ;;
esac
echo "$diff"
echo >&2
echo "check-format: the lines above, changed since ${base:0:12}, are not formatted as" \
  ".clang-format says. Fix them with:" >&2
echo "  ${format[*]} -f $base" >&2
exit 1
