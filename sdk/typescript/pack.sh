#!/usr/bin/env bash
# Packs the SDK as npm publishes it: `npm pack` runs `prepack` (tsc with this package's own
# tsconfig into dist/), and the tarball holds dist/, README.md and package.json only.
# Usage: sdk/typescript/pack.sh OUT  -> OUT/typescript/delayed-tasks-sdk-<version>.tgz
set -euo pipefail
out="${1:?usage: pack.sh OUT}"
cd "$(dirname "${BASH_SOURCE[0]}")"
mkdir -p "$out/typescript"
rm -f "$out"/typescript/*.tgz
npm pack --silent --pack-destination "$out/typescript" >/dev/null
ls "$out"/typescript/*.tgz
