#!/usr/bin/env bash
# Sets up and starts everything on one machine: dependencies, the Temporal CLI (if missing), the
# Temporal dev server (persistent, Web UI on :8233), the worker and the HTTP API on :3000.
# With TEMPORAL_ADDRESS set, uses that server and starts none. Ctrl-C stops all of it. Its ports:
# PORT, WORKER_PORT, WORKER_SDK_METRICS_PORT, TEMPORAL_PORT, TEMPORAL_UI_PORT (a second stack sets all
# of them and DEV_DATA_DIR; src/dev/stack.ts names those in use before starting anything).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if [[ ! -d node_modules || package-lock.json -nt node_modules/.package-lock.json ]]; then
  npm ci --no-audit --no-fund
fi
npm run --silent build
if [[ -z "${TEMPORAL_ADDRESS:-}" ]]; then
  TEMPORAL_CLI_PATH="$(scripts/temporal-cli.sh)"
  export TEMPORAL_CLI_PATH
fi
exec node dist/dev/start.js
