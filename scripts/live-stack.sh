#!/usr/bin/env bash
# Starts the live stack for the SDKs' scenario tests (scripts/live-stack.ts): an in-memory Temporal
# dev server, the worker and the API on free loopback ports. Writes DTS_URL, DTS_API_KEY and
# DTS_WEBHOOK_SECRET to the env file given as argument once ready; SIGTERM or Ctrl-C stops it all.
#   scripts/live-stack.sh /tmp/dts.env &   # then: set -a; . /tmp/dts.env; set +a
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
[[ $# -eq 1 ]] || { echo "usage: $0 <env-file>" >&2; exit 2; }

# A linked node_modules (a worktree sharing another checkout's) is that checkout's to install.
if [[ ! -d node_modules ]] || [[ ! -L node_modules && package-lock.json -nt node_modules/.package-lock.json ]]; then
  npm ci --no-audit --no-fund >&2
fi
TEMPORAL_CLI_PATH="$(scripts/temporal-cli.sh)"
export TEMPORAL_CLI_PATH
exec node --import tsx scripts/live-stack.ts "$1"
