#!/usr/bin/env bash
# `go get`s the module through the file GOPROXY pack.sh filled, in a fresh module outside the
# repository, and runs the README's first example (a whole program) against the live stack
# (DTS_URL, DTS_API_KEY): create, status, cancel. Usage: sdk/go/install-test.sh OUT. Last line: go-install: ...
set -uo pipefail
out="${1:?usage: install-test.sh OUT}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
summary() { echo "go-install: $1 passed, $2 failed, 0 skipped"; }
proxy="$(cd "$out/go/proxy" 2>/dev/null && pwd)" || { echo "no $out/go/proxy: run pack.sh first" >&2; summary 0 1; exit 1; }
module="$(cd "$here" && go list -m)"
version="v$(sed -nE 's/^const Version = "([^"]+)"/\1/p' "$here/client.go")"
project="$(mktemp -d)"
# The module cache is read-only: go clean removes it before the folder goes.
trap 'go clean -modcache >/dev/null 2>&1; rm -rf "$project"' EXIT
cd "$project"
# Only our proxy, no checksum database (the module is not public yet); a fresh module cache.
export GOPROXY="file://$proxy" GOSUMDB=off GOFLAGS=-mod=mod GOMODCACHE="$project/modcache"
go mod init example.com/sdk-install-test >/dev/null 2>&1
go get "$module@$version" || { summary 0 1; exit 1; }
awk '/^```go$/{f=1;next} /^```$/{if(f){exit}} f' "$here/README.md" >main.go
if go run .; then summary 1 0; else summary 0 1; exit 1; fi
