#!/usr/bin/env bash
# Runs every test: unit tests, then integration tests against a real Temporal dev server (started
# and torn down by the tests) and real HTTP callback receivers on loopback, then every SDK's tests
# (scripts/test-sdks.sh) against one live stack. Arguments go to vitest and leave the SDKs out.
# Installs dependencies and obtains the tools the tests run first when they are missing (the Temporal
# CLI, Debian's chromium and prometheus, Jaeger): a newcomer's run skips no more than CI's.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if [[ ! -d node_modules || package-lock.json -nt node_modules/.package-lock.json ]]; then
  npm ci --no-audit --no-fund
fi
# Debian's packages the tests run, installed when we can (root and apt-get), as on CI: Chromium for
# the console's browser tests, prometheus for promtool (the alert rules' unit tests) and the
# Prometheus server (the console's lag panel). Without them those tests skip, and fail under CI=true.
missing=()
[[ -x /usr/bin/chromium ]] || missing+=(chromium)
command -v promtool >/dev/null 2>&1 && command -v prometheus >/dev/null 2>&1 || missing+=(prometheus)
if [[ ${#missing[@]} -gt 0 ]]; then
  if command -v apt-get >/dev/null 2>&1 && [[ $(id -u) == 0 ]]; then
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null) ||
      echo "could not install ${missing[*]}: the tests that need them will skip (fail under CI=true)" >&2
  else
    echo "missing ${missing[*]} (Debian's packages): the tests that need them will skip (fail under CI=true)" >&2
  fi
fi
# Jaeger v2 for the tracing test: no registry package carries it, so scripts/jaeger.sh builds it once
# from the Go module proxy (minutes, see docs/operating.md); for the whole suite and under CI only, a
# narrowed run uses it when it is already there.
if [[ -z "${JAEGER_PATH:-}" && ( $# -eq 0 || "${CI:-}" == true ) ]]; then
  if JAEGER_PATH="$(scripts/jaeger.sh)"; then
    export JAEGER_PATH
  else
    echo "no Jaeger: the tracing test will skip (fail under CI=true)" >&2
  fi
fi
# helm for the chart's render test (test/deploy/helm-render.test.ts), built once like Jaeger by
# scripts/chart-tools.sh (with kube-score, which CI's chart check uses); the test builds it itself
# when run alone.
if [[ -z "${HELM_PATH:-}" && ( $# -eq 0 || "${CI:-}" == true ) ]]; then
  if HELM_PATH="$(scripts/chart-tools.sh | sed -n 1p)" && [[ -n "$HELM_PATH" ]]; then
    export HELM_PATH
  else
    echo "no helm: the chart's render test will fail" >&2
  fi
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
# The broker and docs tests (test/integration/broker*-*.test.ts, receivers-doc) start Redis, PostgreSQL,
# RabbitMQ and Kafka through scripts/local-server.sh, installing them when missing, and leave the
# shared instances running (files use them at the same time); stop them all when we are done.
stop_brokers() {
  for server in rabbitmq kafka redis redis@broker-down postgres epmd; do scripts/local-server.sh stop "$server" || true; done
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
