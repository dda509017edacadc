#!/usr/bin/env bash
# Prints the commit a change is measured from, for the checks that look only at what changed
# (check-format.sh, lint.sh --changed): the merge base with main, or the previous commit when
# HEAD is main (as on CI's clean checkout of main). Prints nothing when there is neither (a
# shallow clone of one commit).
set -euo pipefail
head=$(git rev-parse HEAD)
base=
for ref in origin/main main; do
  if git rev-parse -q --verify "$ref^{commit}" >/dev/null; then
    base=$(git merge-base HEAD "$ref" || true)
    break
  fi
done
if [ -z "$base" ] || [ "$base" = "$head" ]; then
  base=$(git rev-parse -q --verify 'HEAD~1^{commit}' || true)
fi
echo "$base"
