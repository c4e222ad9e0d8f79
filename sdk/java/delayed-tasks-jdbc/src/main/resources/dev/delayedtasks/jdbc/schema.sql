-- The table of dev.delayedtasks.jdbc.SqlIdempotencyStore (PostgreSQL), as SqlIdempotencyStore.migrate()
-- creates it; copy it into your own migrations (Flyway, Liquibase) if you prefer.
CREATE TABLE IF NOT EXISTS delayed_tasks_idempotency (
  key text PRIMARY KEY,
  state text NOT NULL,
  token text,
  expires_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS delayed_tasks_idempotency_expires_at ON delayed_tasks_idempotency (expires_at);
