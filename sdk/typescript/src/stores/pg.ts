/**
 * `SqlIdempotencyStore` (`@delayed-tasks/sdk/pg`): claims in a PostgreSQL table through node-postgres
 * (`pg`, an optional peer dependency that only this entry point needs), and the inbox:
 * `runInTransaction` writes the key as done in the same transaction as the effect, so the business
 * write and its mark commit or roll back together (conformance/stores/README.md).
 */
import { createHash, randomUUID } from 'node:crypto';
import type { ClientBase, Pool } from 'pg';
import {
  ClaimResult,
  DEFAULT_CLAIM_TTL_MS,
  DEFAULT_DONE_TTL_MS,
  type Claim,
  type IdempotencyStore,
} from '../receive/idempotency.js';

/** The table, as `migrate()` creates it (also shipped as `schema.sql` in the package). */
export const IDEMPOTENCY_SCHEMA = `CREATE TABLE IF NOT EXISTS delayed_tasks_idempotency (
  key text PRIMARY KEY,
  state text NOT NULL,
  token text,
  expires_at timestamptz NOT NULL
);
`;

export interface SqlIdempotencyStoreOptions {
  /** @defaultValue 300000 (5 minutes) */
  claimTtlMs?: number;
  /** @defaultValue 604800000 (7 days) */
  doneTtlMs?: number;
}

/** What `runInTransaction` did: committed the effect (with its value), or found the key taken. */
export type InboxResult<T> =
  { result: 'COMMITTED'; value: T } | { result: typeof ClaimResult.DONE | typeof ClaimResult.IN_PROGRESS };

/**
 * A claim inserts the key, or takes over a row whose claim (or done mark) expired; one row
 * affected wins. The answer for a key taken comes in the same round trip; when the row was
 * committed by another session after this statement's snapshot, the select sees nothing and the
 * claim is asked again.
 */
const CLAIM = `WITH won AS (
  INSERT INTO delayed_tasks_idempotency AS t (key, state, token, expires_at)
  VALUES ($1, 'claimed', $2, now() + $3 * interval '1 millisecond')
  ON CONFLICT (key) DO UPDATE SET state = 'claimed', token = EXCLUDED.token, expires_at = EXCLUDED.expires_at
  WHERE t.expires_at < now()
  RETURNING 'CLAIMED'::text AS result
)
SELECT result FROM won
UNION ALL
SELECT CASE WHEN state = 'done' THEN 'DONE' ELSE 'IN_PROGRESS' END
FROM delayed_tasks_idempotency WHERE key = $1 AND NOT EXISTS (SELECT 1 FROM won)`;

const DONE = `INSERT INTO delayed_tasks_idempotency AS t (key, state, token, expires_at)
VALUES ($1, 'done', NULL, now() + $2 * interval '1 millisecond')
ON CONFLICT (key) DO UPDATE SET state = 'done', token = NULL, expires_at = EXCLUDED.expires_at`;

/** The inbox's mark: inserted as done unless a live row holds the key. */
const MARK = `${DONE} WHERE t.expires_at < now() RETURNING key`;

const RELEASE = `DELETE FROM delayed_tasks_idempotency WHERE key = $1 AND state = 'claimed' AND token = $2`;

const STATE = `SELECT state FROM delayed_tasks_idempotency WHERE key = $1`;

/** A key longer than this many bytes is stored as its SHA-256 hex (a btree entry is bounded). */
const MAX_KEY_BYTES = 200;
const bounded = (key: string) =>
  Buffer.byteLength(key) > MAX_KEY_BYTES ? createHash('sha256').update(key).digest('hex') : key;

export class SqlIdempotencyStore implements IdempotencyStore {
  private readonly claimTtlMs: number;
  private readonly doneTtlMs: number;

  /** `pool`: your pg `Pool` (or one connected client); the store never ends it. */
  constructor(
    private readonly pool: Pool | ClientBase,
    options: SqlIdempotencyStoreOptions = {},
  ) {
    this.claimTtlMs = options.claimTtlMs ?? DEFAULT_CLAIM_TTL_MS;
    this.doneTtlMs = options.doneTtlMs ?? DEFAULT_DONE_TTL_MS;
  }

  /** Creates the table if it is missing (`IDEMPOTENCY_SCHEMA`). */
  async migrate(): Promise<void> {
    await this.pool.query(IDEMPOTENCY_SCHEMA);
  }

  async claim(key: string, claimTtlMs = this.claimTtlMs): Promise<Claim> {
    const token = randomUUID();
    for (let attempt = 0; attempt < 5; attempt++) {
      const { rows } = await this.pool.query<{ result: ClaimResult }>(CLAIM, [
        bounded(key),
        token,
        claimTtlMs,
      ]);
      const result = rows[0]?.result;
      if (result === ClaimResult.CLAIMED) return { result, token };
      if (result) return { result };
    }
    // The key changed hands five times during these claims: it is busy.
    return { result: ClaimResult.IN_PROGRESS };
  }

  async complete(key: string): Promise<void> {
    await this.pool.query(DONE, [bounded(key), this.doneTtlMs]);
  }

  async release(key: string, token: string): Promise<void> {
    await this.pool.query(RELEASE, [bounded(key), token]);
  }

  /**
   * The inbox: on `client` (one connection, not in a transaction: take it from your pool), begins
   * a transaction, marks `key` done, runs `effect` with the same client and commits; `effect`
   * throwing rolls back its writes and the mark together (and rethrows). A key done before, or
   * marked by a concurrent transaction that committed (this one waits for it), runs nothing.
   */
  async runInTransaction<T>(
    client: ClientBase,
    key: string,
    effect: (client: ClientBase) => Promise<T>,
  ): Promise<InboxResult<T>> {
    await client.query('BEGIN');
    try {
      const marked = await client.query(MARK, [bounded(key), this.doneTtlMs]);
      if (marked.rowCount === 0) {
        const { rows } = await client.query<{ state: string }>(STATE, [bounded(key)]);
        await client.query('ROLLBACK');
        return { result: rows[0]?.state === 'claimed' ? ClaimResult.IN_PROGRESS : ClaimResult.DONE };
      }
      const value = await effect(client);
      await client.query('COMMIT');
      return { result: 'COMMITTED', value };
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    }
  }
}
