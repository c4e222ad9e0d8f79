#!/usr/bin/env bash
# Prints the path of a `jaeger` binary (Jaeger v2: an OTLP receiver, an in-memory trace store and the
# query API at /api/traces/<id>), the trace store the tracing test reads back from. Obtains it if needed.
#
# Order: $JAEGER_PATH, then the pinned build cached in .tools/, else build the pinned version from the
# Go module proxy into .tools/ (first run only; docs/development.md has the measured time).
# Idempotent: a second run only prints the path. Built, not fetched: no package on a registry we
# reach (PyPI, npm, Debian) carries Jaeger's release binary (looked for 2026-12-05).
set -euo pipefail

# v1.75.0 of the module is Jaeger v2's binary (cmd/jaeger, built on the OpenTelemetry Collector).
JAEGER_VERSION="${JAEGER_VERSION:-1.75.0}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache_dir="$root/.tools/jaeger-$JAEGER_VERSION"
cached="$cache_dir/jaeger"

if [[ -n "${JAEGER_PATH:-}" ]]; then
  [[ -x "$JAEGER_PATH" ]] || { echo "JAEGER_PATH=$JAEGER_PATH is not an executable" >&2; exit 1; }
  echo "$JAEGER_PATH"
  exit 0
fi
if [[ -x "$cached" ]]; then
  echo "$cached"
  exit 0
fi

command -v go >/dev/null 2>&1 || {
  echo "No jaeger binary found and no Go toolchain to build it. Set JAEGER_PATH to a Jaeger v2 binary." >&2
  exit 1
}
echo "Building Jaeger v$JAEGER_VERSION from the Go module proxy (first run only)..." >&2
# `go install pkg@version` refuses a module whose go.mod has replace directives (Jaeger pins sarama),
# so the build runs in a throwaway module that requires Jaeger and repeats its one replace.
build_dir="$(mktemp -d)"
trap 'rm -rf "$build_dir"' EXIT
mkdir -p "$cache_dir"
started=$SECONDS
(
  cd "$build_dir"
  export GOFLAGS=-buildvcs=false GOWORK=off
  go mod init jaeger-build >/dev/null 2>&1
  go mod edit -replace github.com/Shopify/sarama=github.com/Shopify/sarama@v1.33.0
  go get "github.com/jaegertracing/jaeger/cmd/jaeger@v$JAEGER_VERSION" >&2
  go build -ldflags "-s -w" -o "$cached.tmp" github.com/jaegertracing/jaeger/cmd/jaeger >&2
)
mv "$cached.tmp" "$cached"
echo "Jaeger ready in $((SECONDS - started)) s: $cached" >&2
echo "$cached"
