#!/usr/bin/env bash
# Installs the built wheel into a fresh virtual environment outside the repository, as a user
# would (`pip install <wheel>`), checks the sdist installs too, then the wheel with its `fastapi`
# extra (from PyPI), and runs the README's first example as a user copies it against the live
# stack (DTS_URL, DTS_API_KEY): create, status, cancel, printing SCHEDULED then CANCELLED;
# then create, pause and delete a schedule (10 next run times, paused True).
# Usage: sdk/python/install-test.sh OUT (after pack.sh OUT). Last line: python-install: ...
set -uo pipefail
out="${1:?usage: install-test.sh OUT}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
summary() { echo "python-install: $1 passed, $2 failed, 0 skipped"; }
wheel="$(ls "$out"/python/*.whl 2>/dev/null | head -n 1)"
sdist="$(ls "$out"/python/*.tar.gz 2>/dev/null | head -n 1)"
[[ -n "$wheel" && -n "$sdist" ]] || { echo "no wheel or sdist in $out/python: run pack.sh first" >&2; summary 0 1; exit 1; }
project="$(mktemp -d)"
trap 'rm -rf "$project"' EXIT
cd "$project"
passed=0 failed=0
# The wheel with the docs' install line (README and docs/sdks.md, the same line: the script
# checks), run as a user runs it with the virtual environment's pip first on PATH.
line="$("$here/../../scripts/sdk-install-line.sh" python)" || { summary 0 1; exit 1; }
rm -rf venv && "${PYTHON:-python3}" -m venv venv
if PATH="$project/venv/bin:$PATH" DTS_SDK_DIST="$(cd "$out" && pwd)" PIP_DISABLE_PIP_VERSION_CHECK=1 bash -c "$line" >/dev/null; then
  passed=$((passed + 1))
else
  echo "the docs' install line failed: $line" >&2
  failed=$((failed + 1))
fi
rm -rf venv && "${PYTHON:-python3}" -m venv venv
if venv/bin/pip install --quiet --disable-pip-version-check "$sdist"; then
  passed=$((passed + 1))
else
  echo "pip install $sdist failed" >&2
  failed=$((failed + 1))
fi
# The wheel with the FastAPI extra (the last venv holds the sdist's install: start again).
rm -rf venv && "${PYTHON:-python3}" -m venv venv
if venv/bin/pip install --quiet --disable-pip-version-check "$wheel[fastapi]" &&
  venv/bin/python -c 'import delayed_tasks.fastapi, delayed_tasks.starlette'; then
  passed=$((passed + 1))
else
  echo "the wheel with its fastapi extra does not install or import" >&2
  failed=$((failed + 1))
fi
# The README's first Python block, as a user copies it.
awk '/^```python$/{f=1;next} /^```$/{if(f){exit}} f' "$here/README.md" >example.py
if output="$(venv/bin/python example.py)" && [[ "$output" == $'SCHEDULED\nCANCELLED\n10\nTrue' ]]; then
  passed=$((passed + 1))
else
  echo "the README example printed: ${output:-nothing}" >&2
  failed=$((failed + 1))
fi
summary "$passed" "$failed"
((failed == 0))
