#!/usr/bin/env bash
# TypeScript SDK checks: typecheck, build (tsc), ESLint + Prettier, vitest (unit, conformance
# vectors, and live scenarios when DTS_URL is set; under CI=true a missing DTS_URL fails them).
# Last line: "typescript: N passed, N failed, N skipped".
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
npx tsc -p tsconfig.json --noEmit || failed_checks=$((failed_checks + 1))
rm -rf dist && npx tsc -p tsconfig.build.json || failed_checks=$((failed_checks + 1))
(cd "$root" && npx eslint sdk/typescript && npx prettier --check sdk/typescript) || failed_checks=$((failed_checks + 1))

report=$(mktemp)
trap 'rm -f "$report"' EXIT
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
