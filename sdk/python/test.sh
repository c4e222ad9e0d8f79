#!/usr/bin/env bash
# Python SDK checks: venv (created or updated), ruff lint + format check, mypy --strict, pytest
# (unit, conformance vectors, and live scenarios when DTS_URL is set; under CI=true a missing
# DTS_URL fails them). Last line: "python: N passed, N failed, N skipped".
set -uo pipefail
cd "$(dirname "$0")"

PYTHON=${PYTHON:-python3}
VENV=.venv
summary() { echo "python: $1 passed, $2 failed, $3 skipped"; }

stamp="$VENV/.installed-$(sha256sum pyproject.toml | cut -c1-16)"
if [[ ! -x "$VENV/bin/python" ]]; then
  "$PYTHON" -m venv "$VENV" || { summary 0 1 0; exit 1; }
fi
if [[ ! -f "$stamp" ]]; then
  "$VENV/bin/pip" install --quiet --disable-pip-version-check -e '.[dev]' || { summary 0 1 0; exit 1; }
  rm -f "$VENV"/.installed-* && touch "$stamp"
fi

failed_checks=0
"$VENV/bin/ruff" check . || failed_checks=$((failed_checks + 1))
"$VENV/bin/ruff" format --check . || failed_checks=$((failed_checks + 1))
"$VENV/bin/mypy" || failed_checks=$((failed_checks + 1))
# Every Python block of the README (install-test.sh runs the first): formatted and lint-clean like
# the code, each on its own, so a fragment that uses a name no block of its own binds (a client
# closed by an earlier block's `with`) fails (ruff's F821).
blocks=$(mktemp -d)
awk -v dir="$blocks" '/^```python$/{f=1;n++;next} /^```$/{f=0} f{print > (dir "/block-" n ".py")}' README.md
for block in "$blocks"/block-*.py; do
  for check in "format --check" "check"; do
    # shellcheck disable=SC2086 # two words on purpose
    "$VENV/bin/ruff" $check --quiet --stdin-filename README-example.py - <"$block" ||
      { echo "README $(basename "$block"): ruff $check fails" >&2; failed_checks=$((failed_checks + 1)); }
  done
done
rm -rf "$blocks"

report=$(mktemp)
trap 'rm -f "$report"' EXIT
"$VENV/bin/pytest" --junitxml="$report" "$@"
status=$?

read -r tests failures errors skipped < <("$VENV/bin/python" - "$report" <<'PY'
import sys
import xml.etree.ElementTree as ET

try:
    root = ET.parse(sys.argv[1]).getroot()
except (OSError, ET.ParseError):
    print(0, 0, 0, 0)
    raise SystemExit
suites = [root] if root.tag == "testsuite" else list(root)
total = lambda key: sum(int(s.get(key, 0)) for s in suites)
print(total("tests"), total("failures"), total("errors"), total("skipped"))
PY
)
failed=$((failures + errors + failed_checks))
passed=$((tests - failures - errors - skipped))
# pytest's exit code 5: no tests collected, which is never green.
[[ $status -eq 5 ]] && echo "pytest collected no tests" >&2
summary "$passed" "$failed" "$skipped"
[[ $status -eq 0 && $failed_checks -eq 0 ]]
