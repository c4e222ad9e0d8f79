#!/usr/bin/env bash
# Gets the module through the file GOPROXY pack.sh filled, in a fresh module outside the
# repository, by running the docs' install line (scripts/sdk-install-line.sh: the README's and
# docs/sdks.md's, the same) with a user's default Go settings, then builds and runs the README's first Go block (a whole
# program: create, status, cancel) against the live stack (DTS_URL, DTS_API_KEY).
# Usage: sdk/go/install-test.sh OUT. Last line: go-install: N passed, N failed, 0 skipped.
set -uo pipefail
out="${1:?usage: install-test.sh OUT}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
passed=0
failed=0
step() { # step NAME COMMAND...: runs one counted step
  local name="$1"
  shift
  if "$@"; then
    passed=$((passed + 1))
  else
    echo "go-install: $name failed" >&2
    failed=$((failed + 1))
  fi
}
summary() { echo "go-install: $passed passed, $failed failed, 0 skipped"; }
proxy="$(cd "$out/go/proxy" 2>/dev/null && pwd)" || {
  echo "no $out/go/proxy: run pack.sh first" >&2
  failed=1
  summary
  exit 1
}
[[ -n "${DTS_URL:-}" ]] || echo "DTS_URL is not set: the program will fail (start scripts/live-stack.sh)" >&2
module="$(cd "$here" && go list -m)"
version="v$(sed -nE 's/^const Version = "([^"]+)"/\1/p' "$here/client.go")"
project="$(mktemp -d)"
# The module cache is read-only: go clean removes it before the folder goes.
trap 'go clean -modcache >/dev/null 2>&1; rm -rf "$project"' EXIT
cd "$project"
# A user's defaults: the public proxy and checksum database, nothing excused from it. The docs'
# line must bring its own GOPROXY and GONOSUMDB (without GONOSUMDB, go get asks sum.golang.org about
# a module it never saw, which fails).
export GOPROXY=https://proxy.golang.org,direct GOSUMDB=sum.golang.org GOFLAGS=-mod=mod GOMODCACHE="$project/modcache" GOWORK=off
unset GONOSUMDB GOPRIVATE GONOSUMCHECK GOINSECURE
go mod init example.com/sdk-install-test >/dev/null 2>&1
line="$("$here/../../scripts/sdk-install-line.sh" go)" || { failed=$((failed + 1)); summary; exit 1; }
[[ "$line" == *"$module@$version"* ]] || echo "go-install: the docs' line does not get $module@$version: $line" >&2
step "the docs' install line: $line" env DTS_SDK_DIST="$(cd "$out" && pwd)" bash -c "$line"
# Built from the module cache only: nothing more is fetched.
export GOPROXY=off
awk '/^```go$/{f=1;next} /^```$/{if(f){exit}} f' "$here/README.md" >main.go
step "build the README program" go build -o program .
if [[ -x program ]]; then
  step "run the README program against ${DTS_URL:-(unset)}" ./program
else
  failed=$((failed + 1))
fi
summary
[[ $failed -eq 0 ]]
