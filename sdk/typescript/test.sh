#!/usr/bin/env bash
# TypeScript SDK checks: typecheck, build (tsc), ESLint + Prettier, vitest (unit, conformance
# vectors, the idempotency stores' vectors and fleet test on a real Redis and PostgreSQL, and live
# scenarios when DTS_URL is set; under CI=true a missing DTS_URL fails them).
# Redis and PostgreSQL come from scripts/local-server.sh (installed from Debian's packages when
# missing) unless DTS_TEST_REDIS_URL / DTS_TEST_PG_URL are given; the servers it started are
# stopped at the end. Last line: "typescript: N passed, N failed, N skipped".
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
root=../..
summary() { echo "typescript: $1 passed, $2 failed, $3 skipped"; }

# A linked node_modules (a worktree sharing another checkout's) is that checkout's to install, as in
# scripts/live-stack.sh: npm ci here would replace the link and race the other checkout's install.
if [[ ! -d $root/node_modules ]] || [[ ! -L $root/node_modules && $root/package-lock.json -nt $root/node_modules/.package-lock.json ]]; then
  (cd "$root" && npm ci --no-audit --no-fund) || { summary 0 1 0; exit 1; }
fi

failed_checks=0
started_servers=()
stop_servers() {
  for name in "${started_servers[@]}"; do "$root/scripts/local-server.sh" stop "$name" || true; done
}
trap stop_servers EXIT
if [[ -z "${DTS_TEST_REDIS_URL:-}" ]] && url="$("$root/scripts/local-server.sh" redis)"; then
  export DTS_TEST_REDIS_URL="$url"
  started_servers+=(redis)
fi
if [[ -z "${DTS_TEST_PG_URL:-}" ]] && url="$("$root/scripts/local-server.sh" postgres)"; then
  export DTS_TEST_PG_URL="$url"
  started_servers+=(postgres)
fi
npx tsc -p tsconfig.json --noEmit || failed_checks=$((failed_checks + 1))
rm -rf dist && npx tsc -p tsconfig.build.json || failed_checks=$((failed_checks + 1))
(cd "$root" && npx eslint sdk/typescript && npx prettier --check sdk/typescript) || failed_checks=$((failed_checks + 1))

report=$(mktemp)
trap 'rm -f "$report"; stop_servers' EXIT
npx vitest run --reporter=default --reporter=json --outputFile.json="$report" "$@"
status=$?
read -r passed failed skipped < <(node -e '
  try {
    const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    console.log(r.numPassedTests, r.numFailedTests, r.numPendingTests + r.numTodoTests);
  } catch { console.log(0, 1, 0); }
' "$report")
failed=$((failed + failed_checks))
summary "$passed" "$failed" "$skipped"
[[ $status -eq 0 && $failed_checks -eq 0 ]]
