-- The table of SQLIdempotencyStore (PostgreSQL), created by its Migrate. One row per key: a live
-- claim ('claimed', its token, until expires_at) or a done mark ('done', until expires_at).
CREATE TABLE IF NOT EXISTS delayed_tasks_idempotency (
  key text PRIMARY KEY,
  state text NOT NULL CHECK (state IN ('claimed', 'done')),
  token text,
  expires_at timestamptz NOT NULL
);
