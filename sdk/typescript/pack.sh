#!/usr/bin/env bash
# Packs the SDK as npm publishes it: `npm pack` runs `prepack` (tsc with this package's own
# tsconfig into dist/), and the tarball holds dist/, schema.sql, README.md and package.json only.
# tsc comes from the repository's npm workspace: installed here first (npm ci) when a fresh clone
# has no node_modules yet, or the lock file is newer than the install, as test.sh does.
# Usage: sdk/typescript/pack.sh OUT  -> OUT/typescript/delayed-tasks-sdk-<version>.tgz
set -euo pipefail
out="${1:?usage: pack.sh OUT}"
out="$(mkdir -p "$out" && cd "$out" && pwd)"
cd "$(dirname "${BASH_SOURCE[0]}")"
root=../..
# A linked node_modules (a worktree sharing another checkout's) is that checkout's to install.
if [[ ! -d $root/node_modules ]] || [[ ! -L $root/node_modules && $root/package-lock.json -nt $root/node_modules/.package-lock.json ]]; then
  (cd "$root" && npm ci --no-audit --no-fund)
fi
mkdir -p "$out/typescript"
rm -f "$out"/typescript/*.tgz
npm pack --silent --pack-destination "$out/typescript" >/dev/null
ls "$out"/typescript/*.tgz
