#!/usr/bin/env bash
# Installs the packed SDK into a fresh project outside the repository, as a user would
# (`npm install <tarball>`), compiles the README's first example with TypeScript, and runs it
# against the live stack (DTS_URL, DTS_API_KEY): create, status, cancel.
# Usage: sdk/typescript/install-test.sh OUT (after pack.sh OUT). Last line: typescript-install: ...
set -uo pipefail
out="${1:?usage: install-test.sh OUT}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
summary() { echo "typescript-install: $1 passed, $2 failed, 0 skipped"; }
tarball="$(ls "$out"/typescript/*.tgz 2>/dev/null | head -n 1)"
[[ -n "$tarball" ]] || { echo "no tarball in $out/typescript: run pack.sh first" >&2; summary 0 1; exit 1; }
project="$(mktemp -d)"
trap 'rm -rf "$project"' EXIT
cd "$project"
cat >package.json <<'JSON'
{ "name": "sdk-install-test", "private": true, "type": "module" }
JSON
npm install --silent --no-audit --no-fund "$tarball" || { summary 0 1; exit 1; }
# The README's first TypeScript block, as a user copies it.
awk '/^```ts$/{f=1;next} /^```$/{if(f){exit}} f' "$here/README.md" >example.ts
cat >tsconfig.json <<'JSON'
{ "compilerOptions": { "target": "ES2022", "module": "NodeNext", "moduleResolution": "NodeNext",
  "strict": true, "skipLibCheck": false, "types": ["node"], "typeRoots": ["TYPEROOTS"], "outDir": "out" },
  "files": ["example.ts"] }
JSON
# TypeScript and Node's types from the repository's install (no download): only the SDK comes from the tarball.
sed -i "s#TYPEROOTS#$here/../../node_modules/@types#" tsconfig.json
node "$here/../../node_modules/typescript/bin/tsc" -p tsconfig.json || { summary 0 1; exit 1; }
if node out/example.js; then summary 1 0; else summary 0 1; exit 1; fi
