#!/usr/bin/env bash
# Java SDK: formatting check (spotless + google-java-format), compile with -Xlint:all -Werror, unit
# and conformance tests (Surefire), the idempotency stores against a real Redis and PostgreSQL
# (conformance/stores vectors and the fleet test; started through scripts/local-server.sh unless
# DTS_REDIS_URL / DTS_POSTGRES_URL are given, and stopped on exit), live
# scenarios (Failsafe; they need DTS_URL, and fail under CI=true without it). Ends with one line:
# "java: N passed, N failed, N skipped".
# The first run downloads the Maven plugins and dependencies into ~/.m2; later runs need no network.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

if ! command -v mvn >/dev/null 2>&1 || ! command -v javac >/dev/null 2>&1; then
  echo "java: Maven and a JDK 17+ are needed (Debian: apt-get install -y maven openjdk-17-jdk-headless)" >&2
  echo "java: 0 passed, 1 failed, 0 skipped"
  exit 1
fi

# The stores' servers: started here (and stopped on exit) unless given.
servers=../../scripts/local-server.sh
started_servers=()
stop_servers() {
  for name in "${started_servers[@]}"; do "$servers" stop "$name" >/dev/null 2>&1 || true; done
}
trap stop_servers EXIT
if [[ -z "${DTS_REDIS_URL:-}" ]]; then
  if DTS_REDIS_URL="$("$servers" redis)"; then started_servers+=(redis); export DTS_REDIS_URL; fi
fi
if [[ -z "${DTS_POSTGRES_URL:-}" ]]; then
  if DTS_POSTGRES_URL="$("$servers" postgres)"; then started_servers+=(postgres); export DTS_POSTGRES_URL; fi
fi

# Each module cleans only when the reactor reaches it: drop every old report first.
rm -rf ./*/target/surefire-reports ./*/target/failsafe-reports
# Maven's -q logger still writes colour resets; strip them so the summary line stands alone.
mvn -B -q -Dstyle.color=never clean verify 2>&1 | sed -u 's/\x1b\[[0-9;]*m//g'
status=${PIPESTATUS[0]}

# Totals from the Surefire and Failsafe XML reports (the <testsuite> element of each file).
tests=0 failures=0 errors=0 skipped=0
shopt -s nullglob
for report in */target/surefire-reports/TEST-*.xml */target/failsafe-reports/TEST-*.xml; do
  suite=$(grep -m1 -o '<testsuite [^>]*>' "$report")
  for attr in tests failures errors skipped; do
    value=$(sed -n "s/.* ${attr}=\"\([0-9]*\)\".*/\1/p" <<<"$suite")
    printf -v "$attr" '%d' $(( ${!attr} + ${value:-0} ))
  done
done
failed=$(( failures + errors ))
passed=$(( tests - failed - skipped ))
if [[ $status -ne 0 && $failed -eq 0 ]]; then failed=1; fi # a build failure outside the tests
echo "java: ${passed} passed, ${failed} failed, ${skipped} skipped"
exit $status
