/**
 * One receiver of the fleet test, run as its own process: `node --import tsx receiver.ts
 * redis|pg URL NAMESPACE CLAIM_TTL_MS`. A node:http receiver with the shared store; its handlers record the
 * effect in the same server (Redis `HINCRBY fleet:effects`, or a row of `fleet_effects`):
 * `fleet.effect` at once, `fleet.hang` only after printing `EFFECT <taskId>` and never (it waits to
 * be killed). Prints `PORT <n>` once listening.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import pg from 'pg';
import { createNodeHandler, type Callback, type IdempotencyStore } from '../../src/index.js';
import { RedisIdempotencyStore } from '../../src/stores/redis.js';
import { SqlIdempotencyStore } from '../../src/stores/pg.js';
import { SECRET } from '../unit/signed-request.js';

const [kind, url, namespace = 'fleet:', claimTtl = '30000'] = process.argv.slice(2);
const CLAIM_TTL_MS = Number(claimTtl);

let store: IdempotencyStore;
let record: (callback: Callback) => Promise<void>;
if (kind === 'redis') {
  const redis = new Redis(url ?? '');
  store = new RedisIdempotencyStore(redis, { namespace, claimTtlMs: CLAIM_TTL_MS });
  record = async ({ taskId }) => void (await redis.hincrby(`${namespace}effects`, taskId, 1));
} else {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  store = new SqlIdempotencyStore(pool, { claimTtlMs: CLAIM_TTL_MS });
  record = async ({ taskId }) =>
    void (await pool.query('INSERT INTO fleet_effects (key, pid) VALUES ($1, $2)', [taskId, process.pid]));
}

const server = createServer(
  createNodeHandler({
    secrets: [SECRET],
    idempotencyStore: store,
    handlers: {
      'fleet.effect': record,
      'fleet.hang': async (callback) => {
        process.stdout.write(`EFFECT ${callback.taskId}\n`);
        await new Promise(() => undefined);
      },
    },
  }),
);
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`PORT ${(server.address() as AddressInfo).port}\n`);
});
