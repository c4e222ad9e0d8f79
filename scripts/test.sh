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
# Chromium (Debian's package) for the console's browser tests, as on CI; installed when we can.
if [[ ! -x /usr/bin/chromium ]] && command -v apt-get >/dev/null 2>&1 && [[ $(id -u) == 0 ]]; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null) ||
    echo "chromium unavailable: the console browser tests will fail" >&2
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
# The broker tests (test/integration/broker-*.test.ts) start Redis, RabbitMQ and Kafka through
# scripts/local-server.sh, installing them when missing; stop what they left running when we are done.
stop_brokers() {
  for server in rabbitmq kafka redis@broker-down; do scripts/local-server.sh stop "$server" || true; done
}
trap stop_brokers EXIT
vitest_started=$SECONDS
npx vitest run --reporter=default --reporter=json --outputFile.json="$report" "$@" || status=$?
vitest_took=$((SECONDS - vitest_started))
echo "vitest took ${vitest_took} s"
sdk_totals=.data/sdk-totals
echo "0 0 0" >"$sdk_totals"
# The SDKs' tests (unit, conformance, live against a stack of their own) run with the whole suite only.
if [[ $# -eq 0 ]]; then
  scripts/test-sdks.sh "$sdk_totals" || status=1
fi
# Closing lines any CI can read; the summary fails when vitest wrote no report or a file failed to load.
node scripts/test-summary.mjs "$report" "$status" "$sdk_totals" || status=$((status == 0 ? 1 : status))
exit $status
