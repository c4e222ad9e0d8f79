#!/usr/bin/env bash
# Builds the module as the Go module proxy would serve it, into a file-based GOPROXY:
# OUT/go/proxy/<module>/@v/{list, vX.Y.Z.info, vX.Y.Z.mod, vX.Y.Z.zip}. The zip holds the module's
# files under <module>@<version>/, as `go mod download` expects (tests included, as for any module).
# Usage: sdk/go/pack.sh OUT
set -euo pipefail
out="${1:?usage: pack.sh OUT}"
cd "$(dirname "${BASH_SOURCE[0]}")"
module="$(go list -m)"
version="v$(sed -nE 's/^const Version = "([^"]+)"/\1/p' client.go)"
dir="$out/go/proxy/$module/@v"
rm -rf "$out/go" && mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
staging="$(mktemp -d)"
trap 'rm -rf "$staging"' EXIT
mkdir -p "$staging/$module@$version"
# The module's own files: what git tracks here (no build output, no local caches).
git ls-files -z . | xargs -0 -I{} cp --parents {} "$staging/$module@$version/"
(cd "$staging" && zip -qrX "$dir/$version.zip" "$module@$version")
cp go.mod "$dir/$version.mod"
printf '{"Version":"%s","Time":"%s"}\n' "$version" "$(git log -1 --format=%cI -- . 2>/dev/null || date -u +%FT%TZ)" >"$dir/$version.info"
echo "$version" >"$dir/list"
echo "$dir/$version.zip"
