/**
 * What each idempotency store adds to one callback: the framework-free receiver (verify, parse,
 * claim, handler, complete) timed per callback, sequentially, against no store; and the store's
 * round trips per callback (calls counted on the client). Prints numbers, asserts nothing.
 *   DTS_TEST_REDIS_URL=redis://... DTS_TEST_PG_URL=postgres://... npx tsx bench/stores.ts [callbacks]
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import pg from 'pg';
import { createReceiver, InMemoryIdempotencyStore, type IdempotencyStore } from '../src/index.js';
import { RedisIdempotencyStore } from '../src/stores/redis.js';
import { SqlIdempotencyStore } from '../src/stores/pg.js';
import { signedRequest } from '../test/unit/signed-request.js';

const callbacks = Number(process.argv[2] ?? 2000);
const { DTS_TEST_REDIS_URL, DTS_TEST_PG_URL } = process.env;

/** Counts the calls of the named methods of a client. */
function counted<T extends object>(target: T, methods: string[]): { client: T; calls: () => number } {
  let calls = 0;
  const client = new Proxy(target, {
    get(object, name, receiver) {
      const value = Reflect.get(object, name, receiver) as unknown;
      if (typeof value !== 'function') return value;
      if (!methods.includes(String(name))) return value.bind(object);
      return (...args: unknown[]) => {
        calls++;
        return (value as (...a: unknown[]) => unknown).apply(object, args);
      };
    },
  });
  return { client, calls: () => calls };
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

async function time(store: IdempotencyStore | false): Promise<number[]> {
  const receive = createReceiver({
    secrets: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
    idempotencyStore: store,
    handlers: { 'order.close': () => undefined },
  });
  const run = randomUUID();
  const now = Math.floor(Date.now() / 1000);
  const requests = Array.from({ length: callbacks + 100 }, (_, i) =>
    signedRequest({ taskId: `${run}-${i}` }, `msg_${run}_${i}`, now),
  );
  const samples: number[] = [];
  for (const [i, { headers, body }] of requests.entries()) {
    const started = performance.now();
    const answer = await receive(headers, body);
    if (answer.status !== 200) throw new Error(`callback ${i}: ${answer.status}`);
    if (i >= 100) samples.push(performance.now() - started); // the first 100 warm up
  }
  return samples.sort((a, b) => a - b);
}

const base = await time(false);
const [base50, base99] = [percentile(base, 0.5), percentile(base, 0.99)];
console.log(
  `${callbacks} callbacks each, sequential; no store: p50 ${base50.toFixed(3)} ms, p99 ${base99.toFixed(3)} ms`,
);

async function report(name: string, store: IdempotencyStore, calls: () => number): Promise<void> {
  const before = calls();
  const samples = await time(store);
  const trips = (calls() - before) / (callbacks + 100);
  const [p50, p99] = [percentile(samples, 0.5), percentile(samples, 0.99)];
  console.log(
    `${name}: p50 ${p50.toFixed(3)} ms (+${(p50 - base50).toFixed(3)}), p99 ${p99.toFixed(3)} ms (+${(p99 - base99).toFixed(3)}), ${trips.toFixed(2)} round trips per callback`,
  );
}

await report('InMemoryIdempotencyStore', new InMemoryIdempotencyStore(), () => 0);
if (DTS_TEST_REDIS_URL) {
  const redis = new Redis(DTS_TEST_REDIS_URL);
  const { client, calls } = counted(redis, ['evalsha', 'eval', 'set']);
  await report(
    'RedisIdempotencyStore',
    new RedisIdempotencyStore(client, { namespace: `bench:${randomUUID()}:` }),
    calls,
  );
  await redis.quit();
} else console.log('RedisIdempotencyStore: skipped (no DTS_TEST_REDIS_URL)');
if (DTS_TEST_PG_URL) {
  const pool = new pg.Pool({ connectionString: DTS_TEST_PG_URL, max: 4 });
  const { client, calls } = counted(pool, ['query']);
  const store = new SqlIdempotencyStore(client);
  await store.migrate();
  await report('SqlIdempotencyStore', store, calls);
  await pool.end();
} else console.log('SqlIdempotencyStore: skipped (no DTS_TEST_PG_URL)');
