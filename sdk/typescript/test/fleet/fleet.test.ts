/**
 * The fleet test (issue 42): N receivers as separate processes share one store (Redis, then
 * PostgreSQL); the same signed callback goes to all of them at once, for 1,000 distinct keys, and
 * each is retried on 503 as the service retries. Exactly one effect per key, none doubled. Then a
 * receiver is killed (SIGKILL) in the middle of an effect: the retry runs it once, on another
 * receiver, after the dead one's claim expired.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { Redis } from 'ioredis';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqlIdempotencyStore } from '../../src/stores/pg.js';
import { signedRequest } from '../unit/signed-request.js';
import { PG_URL, pgPool, REDIS_URL, redisClient } from '../stores/servers.js';

const RECEIVERS = 4;
const KEYS = 1000;
/** Keys delivered at once (each to every receiver). */
const PARALLEL = 100;

interface Receiver {
  child: ChildProcess;
  url: string;
  /** Lines the process printed after `PORT`. */
  lines: string[];
  onLine?: (line: string) => void;
}

/**
 * Claims of 30 s in the fleet: a claim must outlive the slowest handler (on a loaded machine a
 * claim of 2 s expired under a handler still running, and a second receiver ran the effect: the
 * documented limit of a claim TTL). The killed receiver claims for 2 s, so the retry comes soon.
 */
const CLAIM_TTL_MS = 30_000;
const KILLED_CLAIM_TTL_MS = 2000;

async function startReceiver(
  kind: string,
  url: string,
  namespace: string,
  claimTtlMs = CLAIM_TTL_MS,
): Promise<Receiver> {
  const script = fileURLToPath(new URL('receiver.ts', import.meta.url));
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', script, kind, url, namespace, String(claimTtlMs)],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const lines: string[] = [];
  const receiver: Receiver = { child, url: '', lines };
  const port = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`receiver exited (${code}) before listening`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const found = /^PORT (\d+)$/.exec(line);
      if (found) resolve(found[1] as string);
      else {
        lines.push(line);
        receiver.onLine?.(line);
      }
    });
  });
  receiver.url = `http://127.0.0.1:${port}/callbacks`;
  return receiver;
}

/** One delivery to one receiver, retried on 503 (the service's retry, sooner) until answered otherwise. */
async function deliver(url: string, taskId: string, taskType = 'fleet.effect'): Promise<string> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const { headers, body } = signedRequest(
      { taskId, taskType },
      `msg_${taskId}`,
      Math.floor(Date.now() / 1000),
    );
    const response = await fetch(url, { method: 'POST', headers, body });
    const answer = (await response.json()) as { status: string };
    if (response.status !== 503 || Date.now() > deadline) return `${response.status} ${answer.status}`;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Every key to every receiver at once, PARALLEL keys at a time; the answers counted. */
async function deliverAll(receivers: Receiver[], keys: string[]): Promise<Record<string, number>> {
  const answers: Record<string, number> = {};
  for (let i = 0; i < keys.length; i += PARALLEL) {
    const batch = keys.slice(i, i + PARALLEL);
    const got = await Promise.all(batch.flatMap((key) => receivers.map((r) => deliver(r.url, key))));
    for (const answer of got) answers[answer] = (answers[answer] ?? 0) + 1;
  }
  return answers;
}

function stop(receivers: Receiver[]): Promise<unknown> {
  return Promise.all(
    receivers.map(
      (r) =>
        new Promise((resolve) => {
          if (r.child.exitCode !== null || r.child.signalCode !== null) return resolve(undefined);
          r.child.once('exit', resolve);
          r.child.kill('SIGTERM');
        }),
    ),
  );
}

/**
 * The same scenario for both stores: `effects()` maps each key to the number of its effects;
 * `cleanup()` removes the run's keys and effects from the server afterwards.
 */
function fleet(
  kind: 'redis' | 'pg',
  url: string,
  effects: (namespace: string) => Promise<Map<string, number>>,
  cleanup: (namespace: string) => Promise<unknown>,
) {
  const namespace = `fleet-${randomUUID().slice(0, 8)}:`;
  let receivers: Receiver[] = [];
  beforeAll(async () => {
    receivers = await Promise.all(
      Array.from({ length: RECEIVERS }, () => startReceiver(kind, url, namespace)),
    );
  }, 60_000);
  afterAll(async () => {
    await stop(receivers);
    await cleanup(namespace);
  });

  it(`${RECEIVERS} receiver processes, ${KEYS} callbacks each sent to all at once: ${KEYS} effects, 0 doubles`, async () => {
    const keys = Array.from({ length: KEYS }, (_, i) => `${namespace}k${i}`);
    const started = Date.now();
    const answers = await deliverAll(receivers, keys);
    const seconds = (Date.now() - started) / 1000;
    const counts = await effects(namespace);
    const doubles = [...counts.values()].filter((n) => n > 1).length;
    console.log(
      `fleet ${kind}: ${RECEIVERS} receivers, ${KEYS} keys x ${RECEIVERS} deliveries in ${seconds.toFixed(1)} s; ` +
        `answers ${JSON.stringify(answers)}; effects ${counts.size}, doubles ${doubles}`,
    );
    expect(answers['200 handled']).toBe(KEYS);
    expect(answers['200 duplicate']).toBe(KEYS * (RECEIVERS - 1));
    expect(counts.size).toBe(KEYS);
    expect(doubles).toBe(0);
  }, 120_000);

  it('a receiver killed (SIGKILL) mid-effect: the retry completes the effect once, on another receiver', async () => {
    const victim = await startReceiver(kind, url, namespace, KILLED_CLAIM_TTL_MS);
    receivers.push(victim);
    const others = receivers.slice(0, RECEIVERS - 1);
    const key = `${namespace}killed`;
    const inEffect = new Promise<void>((resolve) => {
      victim.onLine = (line) => line === `EFFECT ${key}` && resolve();
    });
    // The first attempt reaches only the victim, which claims the key and hangs in its effect.
    const first = deliver(victim.url, key, 'fleet.hang').catch(() => 'connection lost');
    await inEffect;
    victim.child.kill('SIGKILL');
    expect(await first).toBe('connection lost');
    // The retries go to three others (the service retries the callback): 503 while the dead
    // claim lives (2 s), then exactly one of them runs the effect.
    const answers = await Promise.all(others.map((r) => deliver(r.url, key)));
    expect(answers.sort()).toEqual(['200 duplicate', '200 duplicate', '200 handled']);
    expect((await effects(namespace)).get(key)).toBe(1);
  }, 60_000);
}

describe.runIf(Boolean(REDIS_URL))('fleet on RedisIdempotencyStore', () => {
  const redis: Redis = redisClient();
  afterAll(() => redis.quit());
  fleet(
    'redis',
    REDIS_URL ?? '',
    async (namespace) => {
      const all = await redis.hgetall(`${namespace}effects`);
      return new Map(Object.entries(all).map(([key, n]) => [key, Number(n)]));
    },
    async (namespace) => {
      const keys = await redis.keys(`${namespace}*`);
      return keys.length > 0 ? redis.del(...keys) : 0;
    },
  );
});

describe.runIf(Boolean(PG_URL))('fleet on SqlIdempotencyStore', () => {
  let pool: pg.Pool;
  beforeAll(async () => {
    pool = pgPool(4);
    await new SqlIdempotencyStore(pool).migrate();
    await pool.query('CREATE TABLE IF NOT EXISTS fleet_effects (key text NOT NULL, pid int NOT NULL)');
  });
  afterAll(() => pool.end());
  fleet(
    'pg',
    PG_URL ?? '',
    async (namespace) => {
      const { rows } = await pool.query<{ key: string; n: string }>(
        'SELECT key, count(*) AS n FROM fleet_effects WHERE key LIKE $1 GROUP BY key',
        [`${namespace}%`],
      );
      return new Map(rows.map(({ key, n }) => [key, Number(n)]));
    },
    async (namespace) => {
      await pool.query('DELETE FROM fleet_effects WHERE key LIKE $1', [`${namespace}%`]);
      await pool.query('DELETE FROM delayed_tasks_idempotency WHERE key LIKE $1', [`${namespace}%`]);
    },
  );
});
