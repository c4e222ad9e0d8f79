#!/usr/bin/env bash
# Prints the path of a Node.js binary of the given major line (default 24), installing it if needed.
#
# Order: a `node` on PATH of that major, then the pinned build cached in .tools/, else npm's
# node-linux-<arch> package of the pinned version (the binary npm's `node` package installs, without
# its install script) into .tools/ (about 20 s). CI runs the tests on it besides the default Node.
set -euo pipefail

major="${1:-24}"
case "$major" in
  22) version="${NODE22_VERSION:-22.23.3}" ;;
  24) version="${NODE24_VERSION:-24.21.0}" ;;
  *) echo "usage: $0 [22|24]" >&2; exit 2 ;;
esac
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

if on_path="$(command -v node 2>/dev/null)" && [[ "$("$on_path" -p 'process.versions.node.split(".")[0]')" == "$major" ]]; then
  echo "$on_path"
  exit 0
fi
case "$(uname -m)" in
  x86_64) arch=x64 ;;
  aarch64) arch=arm64 ;;
  *) echo "no Node.js package for $(uname -m)" >&2; exit 1 ;;
esac
prefix="$root/.tools/node-$version"
binary="$prefix/node_modules/node-linux-$arch/bin/node"
if [[ ! -x "$binary" ]]; then
  npm install --prefix "$prefix" --no-save --no-audit --no-fund --loglevel=error "node-linux-$arch@$version" >&2
fi
"$binary" --version >/dev/null
echo "$binary"
