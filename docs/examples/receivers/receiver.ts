/**
 * One replica of the receiver in docs/receivers.md, with the Redis store every replica shares:
 * `node --import tsx docs/examples/receivers/receiver.ts PORT` (0: any free port), with `REDIS_URL`
 * and `WEBHOOK_SECRET` set. Its effect is a line on stdout, `effect: order <id> closed by :<port>`.
 * In your project the imports are `@delayed-tasks/sdk` and `@delayed-tasks/sdk/redis`; here they
 * are the SDK's sources, so the example runs from the repository without publishing anything.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { createNodeHandler } from '../../../sdk/typescript/src/index.js';
import { RedisIdempotencyStore } from '../../../sdk/typescript/src/stores/redis.js';

const { REDIS_URL, WEBHOOK_SECRET } = process.env;
if (!REDIS_URL || !WEBHOOK_SECRET) throw new Error('set REDIS_URL and WEBHOOK_SECRET');

const store = new RedisIdempotencyStore(new Redis(REDIS_URL)); // keys delayed-tasks:idem:<webhook-id>

const server = createServer(
  createNodeHandler({
    secrets: [WEBHOOK_SECRET],
    idempotencyStore: store,
    handlers: {
      'order.close_timeout': async ({ payload }) => {
        const { port } = server.address() as AddressInfo;
        console.log(`effect: order ${(payload as { orderId: string }).orderId} closed by :${port}`);
      },
    },
  }),
);
server.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  console.log(`replica listening on http://127.0.0.1:${port}/callbacks`);
});
