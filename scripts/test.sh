#!/usr/bin/env bash
# Runs every test: unit tests, then integration tests against a real Temporal dev server (started
# and torn down by the tests) and real HTTP callback receivers on loopback, then every SDK's tests
# (scripts/test-sdks.sh) against one live stack. Arguments go to vitest and leave the SDKs out.
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
status=0
vitest_started=$SECONDS
npx vitest run --reporter=default --reporter=json --outputFile.json="$report" "$@" || status=$?
vitest_took=$((SECONDS - vitest_started))
sdk_totals=.data/sdk-totals
echo "0 0 0" >"$sdk_totals"
if [[ $# -eq 0 ]]; then
  scripts/test-sdks.sh "$sdk_totals" || status=1
fi
# A closing line any CI can read: vitest's counts plus every SDK's.
node -e '
  const fs = require("fs");
  const r = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
  const [p, f, s] = fs.readFileSync(process.argv[2], "utf8").trim().split(/\s+/).map(Number);
  console.log(`vitest: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests + r.numTodoTests} skipped in ${process.argv[3]} s`);
  console.log(`tests: ${r.numPassedTests + p} passed, ${r.numFailedTests + f} failed, ${r.numPendingTests + r.numTodoTests + s} skipped`);
' "$report" "$sdk_totals" "$vitest_took" || status=1
exit $status
