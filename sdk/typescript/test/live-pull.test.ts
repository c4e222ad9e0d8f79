/**
 * Live scenarios of pull delivery against the real service (scripts/live-stack.sh), with the
 * PullWorker. Skipped without DTS_URL (a failure under CI=true, see live.test.ts), and skipped with
 * a message while the service has no lease routes (before the pull branch's routes are merged).
 * Pull tasks are created through the client's create with `delivery`.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DelayedTasksClient,
  InMemoryIdempotencyStore,
  PermanentError,
  PullWorker,
  type LeasedTask,
  type Task,
  type TaskStatus,
} from '../src/index.js';

const { DTS_URL, DTS_API_KEY } = process.env;

/** Whether the service has the lease routes (a 404 NOT_FOUND for the route says it has not). */
async function hasLeaseRoutes(): Promise<boolean> {
  if (!DTS_URL) return false;
  const response = await fetch(`${DTS_URL}/api/v1/leases`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(DTS_API_KEY ? { authorization: `Bearer ${DTS_API_KEY}` } : {}),
    },
    body: JSON.stringify({ queues: ['sdk-ts-probe'], waitSeconds: 0 }),
  });
  if (response.status === 404) console.log('the service has no lease routes yet: pull scenarios skipped');
  return response.status !== 404;
}
const leaseRoutes = await hasLeaseRoutes();

describe.runIf(leaseRoutes)('live pull delivery', () => {
  const client = new DelayedTasksClient({ baseUrl: DTS_URL ?? '', apiKey: DTS_API_KEY || undefined });
  const run = randomUUID().slice(0, 8);
  const workers: PullWorker[] = [];
  afterAll(() => Promise.all(workers.map((w) => w.shutdown(1000))));

  async function createPull(
    taskType: string,
    queue: string,
    payload: Record<string, unknown>,
  ): Promise<string> {
    const taskId = `ts-pull-${run}-${randomUUID().slice(0, 8)}`;
    const { task, created } = await client.create({
      taskType,
      taskId,
      payload,
      delaySeconds: 0,
      delivery: { mode: 'pull', queue, leaseSeconds: 6 },
    });
    expect(created).toBe(true);
    expect(task.delivery).toEqual({ mode: 'pull', queue, leaseSeconds: 6 });
    expect(task.callbackUrl).toBeUndefined();
    return taskId;
  }

  async function until(taskId: string, status: TaskStatus): Promise<Task> {
    const deadline = Date.now() + 45_000;
    for (;;) {
      const task = await client.status(taskId);
      if (task.status === status) return task;
      if (Date.now() > deadline) throw new Error(`${taskId} is ${task.status}, not ${status}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  function worker(queue: string, options: ConstructorParameters<typeof PullWorker>[1] = {}): PullWorker {
    const w = new PullWorker(client, {
      queues: [queue],
      waitSeconds: 2,
      workerIdentity: `ts-live-${run}`,
      ...options,
    });
    workers.push(w);
    return w;
  }

  let queue: string;
  beforeAll(() => {
    queue = `ts-live-${run}`;
  });

  it('a worker leases the due task, its handler outlives the lease through extensions, the ack makes it SUCCEEDED', async () => {
    const q = `${queue}-ok`;
    const seen: LeasedTask[] = [];
    const w = worker(q, { idempotencyStore: new InMemoryIdempotencyStore() }).handle(
      'sdk.ts.pull',
      async (task) => {
        // Longer than the 6 s lease: without the extensions (about every 2 s) the lease would
        // expire, the ack be refused and the task retried (a second attempt).
        await new Promise((resolve) => setTimeout(resolve, 7500));
        seen.push(task);
      },
    );
    const running = w.run();
    const taskId = await createPull('sdk.ts.pull', q, { n: 1 });
    const done = await until(taskId, 'SUCCEEDED');
    expect(done.attempts).toBe(1);
    expect(seen.map((t) => [t.taskId, t.payload, t.attempt])).toEqual([[taskId, { n: 1 }, 1]]);
    expect(seen[0]?.idempotencyKey).toBeTruthy();
    await w.shutdown(5000);
    await running;
  });

  it('a PermanentError fails the task at once with its message', async () => {
    const q = `${queue}-fail`;
    const w = worker(q).handle('sdk.ts.pull', () => {
      throw new PermanentError('order does not exist');
    });
    const running = w.run();
    const taskId = await createPull('sdk.ts.pull', q, {});
    const failed = await until(taskId, 'FAILED');
    expect(failed.lastError?.message).toContain('order does not exist');
    await w.shutdown(5000);
    await running;
  });

  it('shutdown releases a running task and another worker runs it without spending an attempt', async () => {
    const q = `${queue}-release`;
    let started: () => void = () => undefined;
    const leased = new Promise<void>((resolve) => (started = resolve));
    const first = worker(q).handle('sdk.ts.pull', async () => {
      started();
      await new Promise(() => undefined);
    });
    const firstRun = first.run();
    const taskId = await createPull('sdk.ts.pull', q, {});
    await leased;
    await first.shutdown(200);
    await firstRun;
    const attempts: number[] = [];
    const second = worker(q).handle('sdk.ts.pull', (task) => void attempts.push(task.attempt));
    const secondRun = second.run();
    await until(taskId, 'SUCCEEDED');
    expect(attempts).toEqual([1]);
    await second.shutdown(5000);
    await secondRun;
  });
});
