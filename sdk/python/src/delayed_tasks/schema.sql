-- The table of SqlIdempotencyStore (delayed_tasks.postgres), as `migrate()` creates it.
CREATE TABLE IF NOT EXISTS delayed_tasks_idempotency (
  key text PRIMARY KEY,
  state text NOT NULL,
  token text,
  expires_at timestamptz NOT NULL
);
