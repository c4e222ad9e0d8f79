#!/bin/sh
# Creates Temporal's two PostgreSQL databases and brings their schemas up to date.
# Runs in temporalio/admin-tools before the server starts. Safe to run on every `up`:
# `create` accepts an existing database, `setup-schema` never lowers the recorded version,
# `update-schema` applies only the versions not yet applied.
set -eu

: "${POSTGRES_SEEDS:?POSTGRES_SEEDS must name the PostgreSQL host}"
: "${POSTGRES_USER:?POSTGRES_USER must be set}"
: "${SQL_PASSWORD:?SQL_PASSWORD must be set}"
DB_PORT="${DB_PORT:-5432}"
MAX_ATTEMPTS="${MAX_ATTEMPTS:-30}"
RETRY_DELAY="${RETRY_DELAY:-2}"
SCHEMA_DIR=/etc/temporal/schema/postgresql/v12

echo "waiting for PostgreSQL at ${POSTGRES_SEEDS}:${DB_PORT}"
attempt=1
until nc -z -w 5 "$POSTGRES_SEEDS" "$DB_PORT"; do
  if [ "$attempt" -ge "$MAX_ATTEMPTS" ]; then
    echo "PostgreSQL did not accept connections after $attempt attempts" >&2
    exit 1
  fi
  attempt=$((attempt + 1))
  sleep "$RETRY_DELAY"
done

sql_tool() {
  temporal-sql-tool --plugin postgres12 --ep "$POSTGRES_SEEDS" -p "$DB_PORT" -u "$POSTGRES_USER" "$@"
}

for pair in temporal:temporal temporal_visibility:visibility; do
  db="${pair%%:*}"
  dir="${pair##*:}"
  echo "schema of database ${db}"
  sql_tool --db "$db" create
  sql_tool --db "$db" setup-schema -v 0.0
  sql_tool --db "$db" update-schema -d "${SCHEMA_DIR}/${dir}/versioned"
done

echo 'Temporal schema is up to date'
