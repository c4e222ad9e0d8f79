#!/usr/bin/env bash
# Runs every test: unit tests, then integration tests against a real Temporal dev server (started
# and torn down by the tests) and real HTTP callback receivers on loopback.
# Installs dependencies and obtains the Temporal CLI first when they are missing.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if [[ ! -d node_modules || package-lock.json -nt node_modules/.package-lock.json ]]; then
  npm ci --no-audit --no-fund
fi
if [[ -z "${TEMPORAL_TEST_ADDRESS:-}" ]]; then
  TEMPORAL_CLI_PATH="$(scripts/temporal-cli.sh)"
  export TEMPORAL_CLI_PATH
fi
mkdir -p .data
report=.data/test-report.json
# A report left by an earlier run must not stand in for this one.
rm -f "$report"
status=0
npx vitest run --reporter=default --reporter=json --outputFile.json="$report" "$@" || status=$?
# A closing line any CI can read; it fails when vitest wrote no report or a suite failed to load.
node scripts/test-summary.mjs "$report" "$status" || status=$((status == 0 ? 1 : status))
exit $status
