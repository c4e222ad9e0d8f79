/**
 * A consumer that hangs up while its long poll is open costs the task neither an attempt nor a
 * lease-length wait: the API aborts the poll, and a task the poll received anyway is released
 * (docs/workers.md, "A consumer that hangs up mid-poll"). Over a real socket: inject cannot hang up.
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness } from '../helpers/harness.js';
import { leaseOne, pullTask, settle } from '../helpers/pull.js';
import { uniqueId, waitForStatus } from '../helpers/tasks.js';

let h: Harness;
let base: string;
beforeAll(async () => {
  h = await Harness.start();
  await h.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await h?.stop();
});

/** Opens a lease call over HTTP and hangs up after `afterMs`. */
async function hangUp(queue: string, afterMs: number): Promise<void> {
  const abort = new AbortController();
  const call = fetch(`${base}/api/v1/leases`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ queues: [queue], waitSeconds: 20 }),
    signal: abort.signal,
  }).catch(() => undefined);
  await new Promise((resolve) => setTimeout(resolve, afterMs));
  abort.abort();
  await call;
}

describe('a consumer that hangs up mid-poll', () => {
  it.each([0, 1, 2])('costs the next task no attempt and no lease-length wait (run %i)', async () => {
    const taskType = h.taskType('pull.hangup');
    await hangUp(taskType, 500);
    const { task } = await h.create(
      pullTask(taskType, { taskId: uniqueId('hangup'), delivery: { mode: 'pull', leaseSeconds: 30 } }),
    );
    const created = Date.now();
    const leased = await leaseOne(h, { queues: [taskType], waitSeconds: 20 });
    const lagMs = Date.now() - created;
    console.log(`hang-up then lease: due -> leased ${lagMs} ms, attempt ${leased.task.attempt}`);
    expect(leased.task.attempt).toBe(1);
    expect(lagMs).toBeLessThan(30_000);
    await settle(h, 'ack', { leaseToken: leased.leaseToken });
    expect((await waitForStatus(h, task.taskId, 'SUCCEEDED')).attempts).toBe(1);
  });

  it('releases a task that arrives for a poll whose consumer is gone: no attempt spent', async () => {
    const taskType = h.taskType('pull.race');
    // The task is due as the consumer hangs up: whichever poll gets it, it is attempt 1 for the next.
    const { task } = await h.create(pullTask(taskType, { taskId: uniqueId('race') }));
    await hangUp(taskType, 0);
    const leased = await leaseOne(h, { queues: [taskType] });
    expect(leased.task.attempt).toBe(1);
    await settle(h, 'ack', { leaseToken: leased.leaseToken });
    const done = await waitForStatus(h, task.taskId, 'SUCCEEDED');
    expect(done.attempts).toBe(1);
    expect(done.attemptHistory).toHaveLength(1);
  });
});
