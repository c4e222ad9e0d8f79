#!/usr/bin/env bash
# Sets up and starts everything on one machine: dependencies, the Temporal CLI (if missing), the
# Temporal dev server (persistent, Web UI on :8233), the worker and the HTTP API on :3000.
# With TEMPORAL_ADDRESS set, uses that server and starts none. Ctrl-C stops all of it. Its ports:
# PORT, WORKER_PORT, WORKER_SDK_METRICS_PORT, TEMPORAL_PORT, TEMPORAL_UI_PORT (a second stack sets all
# of them and DEV_DATA_DIR; src/dev/stack.ts names those in use before starting anything).
# DEV_BROKERS=redis,rabbitmq,kafka (any of them) also starts those brokers on 127.0.0.1 through
# scripts/local-server.sh (instances NAME@dev, left running: `scripts/local-server.sh stop NAME@dev`)
# and declares them in .data/dev-brokers.json (BROKERS_FILE) as `redis`, `rabbitmq` and `kafka`, for
# the default owner and any destination (docs/brokers.md). None is started by default.
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
if [[ -n "${DEV_BROKERS:-}" ]]; then
  mkdir -p .data
  declarations=()
  IFS=, read -r -a wanted <<<"$DEV_BROKERS"
  for broker in "${wanted[@]}"; do
    case "$broker" in
      redis) kind=redis-streams ;;
      rabbitmq) kind=rabbitmq ;;
      kafka) kind=kafka ;;
      *) echo "DEV_BROKERS: unknown broker $broker (redis, rabbitmq, kafka)" >&2 && exit 2 ;;
    esac
    url="$(scripts/local-server.sh "$broker@dev")"
    declarations+=("$broker" "$kind" "$url")
    # Its address for a consumer (`scripts/local-server.sh NAME@dev` prints it again while it runs).
    echo "[dev] broker $broker ($kind): $url" >&2
  done
  # Credentials leave the URL (a declaration's URL may carry none): RabbitMQ's guest through the env.
  node -e '
    const rest = process.argv.slice(1);
    const brokers = {};
    for (let i = 0; i < rest.length; i += 3) {
      const url = new URL(rest[i + 2]);
      const user = decodeURIComponent(url.username);
      url.username = ""; url.password = "";
      brokers[rest[i]] = { kind: rest[i + 1], url: url.toString().replace(/\/$/, ""),
        ...(user && { username: user, passwordEnv: "DEV_RABBITMQ_PASSWORD" }), owners: { default: ["*"] } };
    }
    require("fs").writeFileSync(".data/dev-brokers.json", JSON.stringify({ brokers }, null, 2));
  ' -- "${declarations[@]}"
  export BROKERS_FILE="$PWD/.data/dev-brokers.json" DEV_RABBITMQ_PASSWORD=guest
  echo "brokers declared in $BROKERS_FILE: ${DEV_BROKERS}" >&2
fi
exec node dist/dev/start.js
