/**
 * conformance/stores/vectors.json against each store: in memory, Redis and PostgreSQL on real
 * servers (servers.ts). Every case runs in a fresh key space.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryIdempotencyStore, type ClaimResult, type IdempotencyStore } from '../../src/index.js';
import { RedisIdempotencyStore } from '../../src/stores/redis.js';
import { SqlIdempotencyStore } from '../../src/stores/pg.js';
import { PG_URL, pgPool, REDIS_URL, redisClient } from './servers.js';

interface Step {
  op: 'claim' | 'claimConcurrently' | 'release' | 'complete' | 'waitMs' | 'inbox' | 'countRows';
  key?: string;
  n?: number;
  claimTtlMs?: number;
  ms?: number;
  as?: string;
  holder?: string;
  effect?: 'insertRow' | 'insertRowThenFail';
  expect?: unknown;
}
interface Case {
  name: string;
  sqlOnly?: boolean;
  steps: Step[];
}

const vectors = JSON.parse(
  readFileSync(new URL('../../../../conformance/stores/vectors.json', import.meta.url), 'utf8'),
) as { cases: Case[] };

/** `long:N`: N 'x' then N; anything else as given, in the case's own key space. */
function keyOf(space: string, key = 'k'): string {
  const long = /^long:(\d+)$/.exec(key);
  return space + (long ? 'x'.repeat(Number(long[1])) + long[1] : key);
}

/** A store for one case, the prefix its keys get, and for SQL the inbox's client and effect table. */
interface Fixture {
  store: IdempotencyStore;
  space: string;
  sql?: { store: SqlIdempotencyStore; pool: pg.Pool; table: string };
}

async function play(c: Case, fixture: Fixture): Promise<void> {
  const { store, space } = fixture;
  const tokens = new Map<string, string>();
  for (const [index, step] of c.steps.entries()) {
    const at = `step ${index} (${step.op})`;
    const key = keyOf(space, step.key);
    switch (step.op) {
      case 'claim': {
        const claim = await store.claim(key, step.claimTtlMs);
        expect(claim.result, at).toBe(step.expect);
        if (claim.token) tokens.set(step.as ?? key, claim.token).set(key, claim.token);
        break;
      }
      case 'claimConcurrently': {
        const claims = await Promise.all(
          Array.from({ length: step.n ?? 0 }, () => store.claim(key, step.claimTtlMs)),
        );
        const counts: Partial<Record<ClaimResult, number>> = {};
        for (const { result, token } of claims) {
          counts[result] = (counts[result] ?? 0) + 1;
          if (token) tokens.set(key, token);
        }
        expect(counts, at).toEqual(step.expect);
        break;
      }
      case 'release':
        await store.release(key, tokens.get(step.holder ?? key) ?? 'no-claim');
        break;
      case 'complete':
        await store.complete(key);
        break;
      case 'waitMs':
        // The claim's TTL has to pass: a wait for time itself, not for another party.
        await sleep(step.ms);
        break;
      case 'inbox': {
        const sql = fixture.sql!;
        const client = await sql.pool.connect();
        try {
          const outcome = await sql.store
            .runInTransaction(client, key, async (tx) => {
              await tx.query(`INSERT INTO ${sql.table} (key) VALUES ($1)`, [key]);
              if (step.effect === 'insertRowThenFail') throw new Error('the effect failed');
            })
            .then(
              ({ result }) => (result === 'DONE' ? 'DUPLICATE' : result),
              () => 'ROLLED_BACK',
            );
          expect(outcome, at).toBe(step.expect);
        } finally {
          client.release();
        }
        break;
      }
      case 'countRows': {
        const sql = fixture.sql!;
        const { rows } = await sql.pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${sql.table}`);
        expect(Number(rows[0]?.n), at).toBe(step.expect);
        break;
      }
    }
  }
}

const cases = vectors.cases.map((c) => [c.name, c] as const);

describe('stores/vectors.json: InMemoryIdempotencyStore', () => {
  it.each(cases.filter(([, c]) => !c.sqlOnly))('%s', async (_, c) => {
    await play(c, { store: new InMemoryIdempotencyStore(), space: '' });
  });
});

describe.runIf(Boolean(REDIS_URL))('stores/vectors.json: RedisIdempotencyStore', () => {
  let redis: Redis;
  beforeAll(() => {
    redis = redisClient();
  });
  afterAll(() => redis.quit());

  it.each(cases.filter(([, c]) => !c.sqlOnly))('%s', async (_, c) => {
    const namespace = `dts-test:${randomUUID()}:`;
    await play(c, { store: new RedisIdempotencyStore(redis, { namespace }), space: '' });
    // Every key stored is namespaced and bounded (the long keys by their SHA-256).
    const stored = await redis.keys(`${namespace}*`);
    for (const key of stored) expect(Buffer.byteLength(key) - namespace.length).toBeLessThanOrEqual(200);
    await (stored.length > 0 ? redis.del(...stored) : undefined);
  });
});

describe.runIf(Boolean(PG_URL))('stores/vectors.json: SqlIdempotencyStore', () => {
  let pool: pg.Pool;
  let store: SqlIdempotencyStore;
  beforeAll(async () => {
    pool = pgPool();
    store = new SqlIdempotencyStore(pool);
    await store.migrate();
    await store.migrate(); // twice: it only creates what is missing
  });
  afterAll(() => pool.end());

  it.each(cases)('%s', async (_, c) => {
    const table = `inbox_effect_${randomUUID().replaceAll('-', '')}`;
    const space = `${randomUUID()}:`;
    await pool.query(`CREATE TABLE ${table} (key text NOT NULL)`);
    try {
      await play(c, { store, space, sql: { store, pool, table } });
    } finally {
      await pool.query(`DROP TABLE ${table}`);
      // The case's keys (the long ones are stored as their SHA-256: left to expire).
      await pool.query('DELETE FROM delayed_tasks_idempotency WHERE key LIKE $1', [`${space}%`]);
    }
  });
});
