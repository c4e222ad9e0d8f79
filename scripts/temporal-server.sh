#!/usr/bin/env bash
# Prints the directory of a Temporal Server build: `temporal-server` (all services in one process) and
# `temporal-sql-tool` (creates and upgrades the PostgreSQL schemas), building it if needed.
#
# For the benchmark's `--server postgres`: the same server version as the CLI's dev server
# (scripts/temporal-cli.sh), so the two runs differ by their store only. Built from the Go module proxy
# into .tools/ under `nice -n 19` (several minutes on 2 cores); idempotent: a second run only prints
# the path. The schemas are the module's own (schema/postgresql/v12/...), also embedded in the tool.
set -euo pipefail

TEMPORAL_SERVER_VERSION="${TEMPORAL_SERVER_VERSION:-1.29.1}" # the server in temporal CLI 1.5.1
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache_dir="$root/.tools/temporal-server-$TEMPORAL_SERVER_VERSION"

if [[ -x "$cache_dir/temporal-server" && -x "$cache_dir/temporal-sql-tool" ]]; then
  echo "$cache_dir"
  exit 0
fi

command -v go >/dev/null 2>&1 || {
  echo "No Go toolchain to build Temporal Server $TEMPORAL_SERVER_VERSION (https://go.dev/dl/)." >&2
  exit 1
}
echo "Building Temporal Server v$TEMPORAL_SERVER_VERSION from the Go module proxy (first run only)..." >&2
mkdir -p "$cache_dir"
started=$SECONDS
# `go install` names binaries after their package directories (server, sql): build into a staging
# directory and give them the names the Temporal release archives use.
staging="$(mktemp -d "$cache_dir/.build-XXXXXX")"
trap 'rm -rf "$staging"' EXIT
GOBIN="$staging" GOFLAGS=-buildvcs=false nice -n 19 go install -ldflags "-s -w" \
  "go.temporal.io/server/cmd/server@v$TEMPORAL_SERVER_VERSION" \
  "go.temporal.io/server/cmd/tools/sql@v$TEMPORAL_SERVER_VERSION" >&2
mv "$staging/sql" "$cache_dir/temporal-sql-tool"
mv "$staging/server" "$cache_dir/temporal-server"
echo "Temporal Server ready in $((SECONDS - started)) s: $cache_dir" >&2
echo "$cache_dir"
