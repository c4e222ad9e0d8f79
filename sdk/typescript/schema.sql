-- The table of SqlIdempotencyStore (@delayed-tasks/sdk/pg); migrate() runs the same statement.
CREATE TABLE IF NOT EXISTS delayed_tasks_idempotency (
  key text PRIMARY KEY,
  state text NOT NULL,
  token text,
  expires_at timestamptz NOT NULL
);
