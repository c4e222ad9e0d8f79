#!/usr/bin/env bash
# Prints the one install line of an SDK (LANG: typescript, go, python, java) as its README states
# it, after checking that every Markdown file of the repository that states an install line for
# LANG states that same line (issue 39: one line per language, the same in every doc). The
# install tests (sdk/<lang>/install-test.sh) run the printed line, so the docs' line is what is
# tested, not a copy. Exits 1, naming the files, when two docs differ or the README has none.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
lang="${1:?usage: sdk-install-line.sh typescript|go|python|java}"
case "$lang" in
  typescript) pattern='npm install .*delayed-tasks-sdk' ;;
  go) pattern='go get github\.com/delayed-tasks/delayed-task-service/sdk/go' ;;
  python) pattern='pip install .*delayed_tasks-' ;;
  java) pattern='<repository><id>delayed-tasks</id>' ;;
  *) echo "unknown SDK language: $lang" >&2; exit 2 ;;
esac
readme="sdk/$lang/README.md"
# An install line stands alone on its line (in a fenced block); leading spaces do not count.
line="$(grep -m1 -E "$pattern" "$readme" | sed -E 's/^\s+//')" ||
  { echo "$readme states no install line for $lang (a line matching $pattern)" >&2; exit 1; }
status=0
while IFS= read -r -d '' doc; do
  while IFS= read -r found; do
    [[ "$(sed -E 's/^\s+//' <<<"$found")" == "$line" ]] && continue
    echo "$doc states another $lang install line than $readme:" >&2
    echo "  $found" >&2
    echo "  $line" >&2
    status=1
  done < <(grep -E "$pattern" "$doc" || true)
done < <(find . -name '*.md' -not -path './node_modules/*' -not -path '*/node_modules/*' -not -path './.data/*' \
  -not -path '*/.venv/*' -not -path '*/target/*' -not -path './.git/*' -not -path './.tools/*' -print0)
((status == 0)) && echo "$line"
exit $status
