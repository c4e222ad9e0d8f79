#!/usr/bin/env bash
# Prints the path of a `temporal` CLI (dev server, Web UI, operator commands), obtaining it if needed.
#
# Order: $TEMPORAL_CLI_PATH, then a `temporal` on PATH, then the pinned build cached in .tools/,
# else build the pinned version from the Go module proxy into .tools/ (about 5 minutes on 2 cores).
# Idempotent: a second run only prints the path.
set -euo pipefail

TEMPORAL_CLI_VERSION="${TEMPORAL_CLI_VERSION:-1.5.1}" # bundles Temporal Server 1.29.1 and UI 2.42.1
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache_dir="$root/.tools/temporal-cli-$TEMPORAL_CLI_VERSION"
cached="$cache_dir/temporal"

if [[ -n "${TEMPORAL_CLI_PATH:-}" ]]; then
  [[ -x "$TEMPORAL_CLI_PATH" ]] || { echo "TEMPORAL_CLI_PATH=$TEMPORAL_CLI_PATH is not an executable" >&2; exit 1; }
  echo "$TEMPORAL_CLI_PATH"
  exit 0
fi
if on_path="$(command -v temporal 2>/dev/null)"; then
  echo "$on_path"
  exit 0
fi
if [[ -x "$cached" ]]; then
  echo "$cached"
  exit 0
fi

command -v go >/dev/null 2>&1 || {
  echo "No temporal CLI found and no Go toolchain to build it. Install the Temporal CLI" >&2
  echo "(https://docs.temporal.io/cli) and put it on PATH, or set TEMPORAL_CLI_PATH." >&2
  exit 1
}
echo "Building the Temporal CLI v$TEMPORAL_CLI_VERSION from the Go module proxy (first run only)..." >&2
mkdir -p "$cache_dir"
started=$SECONDS
GOBIN="$cache_dir" GOFLAGS=-buildvcs=false go install \
  -ldflags "-s -w -X github.com/temporalio/cli/temporalcli.Version=$TEMPORAL_CLI_VERSION" \
  "github.com/temporalio/cli/cmd/temporal@v$TEMPORAL_CLI_VERSION" >&2
echo "Temporal CLI ready in $((SECONDS - started)) s: $cached" >&2
echo "$cached"
