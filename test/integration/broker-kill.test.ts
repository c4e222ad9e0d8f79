/**
 * `kill -9` of the worker mid-publish: the broker (a redis-server of this file's own, started by
 * scripts/local-server.sh) is paused for writes so the XADD is in flight when the worker process is
 * killed; a new worker retries the attempt once it times out, and the task is delivered: no loss,
 * and every entry, a duplicate included, carries the same idempotency key. RabbitMQ's and Kafka's
 * counterparts: broker-rabbitmq-faults.test.ts, broker-kafka-faults.test.ts.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idempotencyKeyOf } from '../../src/shared/owner.js';
import { localServer, stopLocalServer, writeBrokersFile } from '../helpers/brokers.js';
import { Harness } from '../helpers/harness.js';
import { freePort, ServiceProcess } from '../helpers/processes.js';
import { uniqueId, waitForStatus } from '../helpers/tasks.js';
import { waitFor } from '../helpers/wait.js';

const SERVER = 'redis@broker-kill';
let h: Harness;
let redis: Redis;
let brokersFile: string;
let worker: ServiceProcess | undefined;

beforeAll(async () => {
  const url = localServer(SERVER);
  redis = new Redis(url);
  brokersFile = writeBrokersFile({ events: { kind: 'redis-streams', url, owners: { default: ['kill.*'] } } });
  // The API here; the first worker a process of its own, killed below.
  h = await Harness.start({ env: { BROKERS_FILE: brokersFile }, workers: false });
}, 600_000);

afterAll(async () => {
  await worker?.stop();
  await h?.stop();
  await redis?.call('CLIENT', 'UNPAUSE').catch(() => undefined);
  redis?.disconnect();
  stopLocalServer(SERVER);
});

describe('a worker killed mid-publish', () => {
  it('loses nothing: the next worker publishes again, under the same key', async () => {
    const [port, sdkPort] = await Promise.all([freePort(), freePort()]);
    worker = new ServiceProcess('worker', 'src/worker/main.ts', {
      TEMPORAL_ADDRESS: h.config.temporal.address,
      TASK_QUEUE: h.taskQueue,
      BROKERS_FILE: brokersFile,
      WORKER_PORT: String(port),
      WORKER_SDK_METRICS_PORT: String(sdkPort),
    });
    await worker.waitUntilHealthy(`http://127.0.0.1:${port}/readyz`);
    const stream = `kill.${uniqueId('s')}`;
    const taskId = uniqueId('kill.task');
    // Writes wait while paused: the worker's XADD will be in flight.
    await redis.call('CLIENT', 'PAUSE', '60000', 'WRITE');
    const created = await h.create({
      taskType: h.taskType('broker.kill'),
      taskId,
      payload: {},
      delaySeconds: 0,
      timeoutMs: 1000,
      delivery: { mode: 'broker', broker: 'events', stream },
    });
    expect(created.status).toBe(201);
    // The XADD has reached Redis and waits there: a client of the worker is blocked on it.
    await waitFor(async () => String(await redis.call('CLIENT', 'LIST')).includes('cmd=xadd'), {
      timeoutMs: 30_000,
      what: 'the worker XADD to be in flight',
    });
    worker.signal('SIGKILL');
    await worker.exitCode();
    worker = undefined;
    await redis.call('CLIENT', 'UNPAUSE');

    await h.startWorkers();
    await waitForStatus(h, taskId, 'SUCCEEDED', 60_000);
    const entries = await redis.xrange(stream, '-', '+');
    expect(entries.length).toBeGreaterThanOrEqual(1);
    for (const [, fields] of entries) {
      const key = fields[fields.indexOf('idempotency-key') + 1];
      expect(key).toBe(idempotencyKeyOf('default', taskId));
    }
  });
});
