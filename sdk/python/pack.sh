#!/usr/bin/env bash
# Builds the wheel and the sdist as PyPI would receive them (`python -m build`, hatchling), in a
# throwaway virtual environment. Usage: sdk/python/pack.sh OUT -> OUT/python/*.whl, *.tar.gz
set -euo pipefail
out="${1:?usage: pack.sh OUT}"
cd "$(dirname "${BASH_SOURCE[0]}")"
venv="$(mktemp -d)"
trap 'rm -rf "$venv"' EXIT
"${PYTHON:-python3}" -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check build
mkdir -p "$out/python"
rm -f "$out"/python/*.whl "$out"/python/*.tar.gz
"$venv/bin/python" -m build --outdir "$out/python" . >/dev/null
ls "$out"/python/*
