#!/usr/bin/env bash
# Installs the packed SDK into a fresh project outside the repository with the docs' install line
# (scripts/sdk-install-line.sh), compiles the README's first example with TypeScript, and runs it
# against the live stack (DTS_URL, DTS_API_KEY): create, status, cancel, checking what it prints;
# then the README's schedule example the same way (create, pause, get, delete).
# Also compiles the Express subpath in that project, which has no Express installed (an optional peer).
# Usage: sdk/typescript/install-test.sh OUT (after pack.sh OUT). Last line: typescript-install: ...
set -uo pipefail
out="${1:?usage: install-test.sh OUT}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
passed=0
failed=0
check() { # check NAME COMMAND...: runs it, counts it
  if "${@:2}"; then passed=$((passed + 1)); echo "ok: $1"; else failed=$((failed + 1)); echo "FAILED: $1" >&2; fi
}
finish() { echo "typescript-install: $passed passed, $failed failed, 0 skipped"; [[ $failed -eq 0 ]]; exit $?; }
tarball="$(ls "$out"/typescript/*.tgz 2>/dev/null | head -n 1)"
[[ -n "$tarball" ]] || { echo "no tarball in $out/typescript: run pack.sh first" >&2; failed=1; finish; }
project="$(mktemp -d)"
trap 'rm -rf "$project"' EXIT
cd "$project"
cat >package.json <<'JSON'
{ "name": "sdk-install-test", "private": true, "type": "module" }
JSON
# The install line of the docs (README and docs/sdks.md, the same line: the script checks), as a
# user runs it; DTS_SDK_DIST is the folder pack.sh wrote.
line="$("$here/../../scripts/sdk-install-line.sh" typescript)" || { failed=1; finish; }
DTS_SDK_DIST="$(cd "$out" && pwd)" npm_config_audit=false npm_config_fund=false bash -c "$line" >/dev/null ||
  { echo "the docs' install line failed: $line" >&2; failed=1; finish; }
# The README's first TypeScript block, as a user copies it.
awk '/^```ts$/{f=1;next} /^```$/{if(f){exit}} f' "$here/README.md" >example.ts
# The first TypeScript block under "## Schedules".
awk '/^## Schedules/{s=1} s&&/^```ts$/{f=1;next} /^```$/{if(f){exit}} f' "$here/README.md" >schedule.ts
# The first TypeScript block under "## Pull worker" (compiled, not run: it leases until stopped).
awk '/^## Pull worker/{s=1} s&&/^```ts$/{f=1;next} /^```$/{if(f){exit}} f' "$here/README.md" >worker.ts
# The Express subpath compiles without Express installed (its types name node:http only).
cat >express-entry.ts <<'TS'
import { callbackMiddleware, type CallbackMiddleware } from '@delayed-tasks/sdk/express';

export const receive: CallbackMiddleware = callbackMiddleware({
  allowUnsigned: true,
  handlers: { 'order.close': () => undefined },
});
TS
cat >tsconfig.json <<'JSON'
{ "compilerOptions": { "target": "ES2022", "module": "NodeNext", "moduleResolution": "NodeNext",
  "strict": true, "skipLibCheck": false, "types": ["node"], "typeRoots": ["TYPEROOTS"], "outDir": "out" },
  "files": ["example.ts", "schedule.ts", "worker.ts", "express-entry.ts"] }
JSON
# TypeScript and Node's types from the repository's install (no download): only the SDK comes from the tarball.
sed -i "s#TYPEROOTS#$here/../../node_modules/@types#" tsconfig.json
check "the README examples (first, schedules, pull worker) and the Express subpath compile against the installed tarball" \
  node "$here/../../node_modules/typescript/bin/tsc" -p tsconfig.json
run_example() {
  node out/example.js >printed.txt || return 1
  cat printed.txt
  [[ "$(cat printed.txt)" == $'SCHEDULED\nCANCELLED' ]] || { echo "printed, not SCHEDULED then CANCELLED" >&2; return 1; }
}
check "the README example runs against the live stack: create, status (SCHEDULED), cancel (CANCELLED)" run_example
run_schedule_example() {
  node out/schedule.js >printed.txt || return 1
  cat printed.txt
  [[ "$(cat printed.txt)" == $'10\ntrue' ]] || { echo "printed, not 10 then true" >&2; return 1; }
  # Deleted: the id answers SCHEDULE_NOT_FOUND.
  node --input-type=module -e "
    import { DelayedTasksClient } from '@delayed-tasks/sdk';
    const tasks = new DelayedTasksClient({ baseUrl: process.env.DTS_URL, apiKey: process.env.DTS_API_KEY });
    await tasks.getSchedule('daily-report').then(() => process.exit(1), (err) => process.exit(err.code === 'SCHEDULE_NOT_FOUND' ? 0 : 1));
  "
}
check "the README schedule example runs: create (10 next runs), pause, get (paused), delete (then not found)" run_schedule_example
finish
