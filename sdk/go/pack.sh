#!/usr/bin/env bash
# Builds the modules as the Go module proxy would serve them, into a file-based GOPROXY:
# OUT/go/proxy/<module>/@v/{list, vX.Y.Z.info, vX.Y.Z.mod, vX.Y.Z.zip}, for the core module and
# the stores module (stores/, its own go.mod, left out of the core's zip as the go command does),
# with the stores module's dependencies.
# A zip holds the module's files under <module>@<version>/, as `go mod download` expects (tests
# included, as for any module).
# Usage: sdk/go/pack.sh OUT
set -euo pipefail
out="${1:?usage: pack.sh OUT}"
cd "$(dirname "${BASH_SOURCE[0]}")"
here="$(pwd)"
version="v$(sed -nE 's/^const Version = "([^"]+)"/\1/p' client.go)"
rm -rf "$out/go" && mkdir -p "$out/go/proxy"
proxy="$(cd "$out/go/proxy" && pwd)"
staging="$(mktemp -d)"
trap 'rm -rf "$staging"' EXIT

# pack DIR: one module, from what git tracks in DIR outside nested modules.
pack() {
  local dir="$1" module
  cd "$here/$dir"
  module="$(go list -m)"
  local at="$proxy/$module/@v"
  mkdir -p "$at" "$staging/$module@$version"
  git ls-files -z . | while IFS= read -r -d '' f; do
    # A file under a directory with its own go.mod belongs to that module.
    local d
    d="$(dirname "$f")"
    while [[ "$d" != . ]]; do
      [[ -f "$d/go.mod" ]] && continue 2
      d="$(dirname "$d")"
    done
    cp --parents "$f" "$staging/$module@$version/"
  done
  (cd "$staging" && zip -qrX "$at/$version.zip" "$module@$version")
  cp go.mod "$at/$version.mod"
  printf '{"Version":"%s","Time":"%s"}\n' "$version" "$(git log -1 --format=%cI -- . 2>/dev/null || date -u +%FT%TZ)" >"$at/$version.info"
  echo "$version" >"$at/list"
  echo "$at/$version.zip"
}
pack .
pack stores

# The stores module's dependencies (go-redis, ...) as the module proxy serves them, so that the
# file GOPROXY alone installs it (the module cache's download directory is a proxy's layout).
cache="$staging/modcache"
(cd "$here/stores" && GOMODCACHE="$cache" GOFLAGS=-mod=mod go mod download)
cp -rn "$cache/cache/download/." "$proxy/"
GOMODCACHE="$cache" go clean -modcache
