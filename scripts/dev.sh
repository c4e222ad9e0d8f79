#!/usr/bin/env bash
# Sets up and starts everything on one machine: dependencies, the Temporal CLI (if missing), the
# Temporal dev server (persistent, Web UI on :8233), the worker and the HTTP API on :3000.
# With TEMPORAL_ADDRESS set, uses that server and starts none. Ctrl-C stops all of it. Its ports:
# PORT, WORKER_PORT, WORKER_SDK_METRICS_PORT, TEMPORAL_PORT, TEMPORAL_UI_PORT (a second stack sets all
# of them and DEV_DATA_DIR; src/dev/stack.ts names those in use before starting anything).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# The Temporal CLI is fetched (or built) while npm installs and compiles: on a first run the two
# would otherwise wait for each other.
if [[ -z "${TEMPORAL_ADDRESS:-}" ]]; then
  cli_path_file="$(mktemp)"
  trap 'rm -f "$cli_path_file"' EXIT
  scripts/temporal-cli.sh >"$cli_path_file" &
  cli_pid=$!
fi
if [[ ! -d node_modules || package-lock.json -nt node_modules/.package-lock.json ]]; then
  npm ci --no-audit --no-fund
fi
# Compile without type checking (3x faster; the same JavaScript): type errors are `npm run
# typecheck`'s, which CI runs.
npm run --silent build -- --noCheck
if [[ -n "${cli_pid:-}" ]]; then
  wait "$cli_pid" || { echo "dev: no Temporal CLI (see above)" >&2; exit 1; }
  TEMPORAL_CLI_PATH="$(cat "$cli_path_file")"
  export TEMPORAL_CLI_PATH
  rm -f "$cli_path_file"
fi
exec node dist/dev/start.js
