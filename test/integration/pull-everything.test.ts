/**
 * Everything a task has, for a pull task (issue 40), on the real dev server: it lists and reads with
 * its delivery and lease, is created in a batch and idempotently, is rescheduled and cancelled
 * before it is due (no consumer ever gets it at the old time, or at all), and its dead letters are
 * replayed in bulk and one by one, each leased again as attempt 1 with the same idempotency key.
 * What a consumer sees is read through the lease route; what an operator sees through GET and list.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness } from '../helpers/harness.js';
import { lease, leaseOne, pullTask, settle } from '../helpers/pull.js';
import {
  listTasks,
  uniqueId,
  waitForBatch,
  waitForList,
  waitForStatus,
  waitUntilRetrying,
} from '../helpers/tasks.js';

let h: Harness;
beforeAll(async () => {
  h = await Harness.start({ env: { LEASE_MIN_SECONDS: '2' } });
});
afterAll(async () => {
  await h?.stop();
});

/** Long-polls `queue` until `untilMs` (epoch) and fails if anything is leased meanwhile. */
async function nothingLeasedUntil(queue: string, untilMs: number): Promise<void> {
  while (Date.now() < untilMs) {
    const waitSeconds = Math.min(20, Math.max(1, Math.ceil((untilMs - Date.now()) / 1000)));
    const { status, leases } = await lease(h, { queues: [queue], waitSeconds });
    expect(status).toBe(200);
    expect(leases.map((l) => [l.task.taskId, l.task.attempt])).toEqual([]);
  }
}

describe('list and get', () => {
  it('list shows a waiting pull task SCHEDULED with deliveryMode pull and no callbackUrl; get shows its delivery', async () => {
    const taskType = h.taskType('pull.list');
    const taskId = uniqueId('pull-list-waiting');
    const created = await h.create(
      pullTask(taskType, {
        taskId,
        delaySeconds: 3600,
        delivery: { mode: 'pull', queue: 'pull.list.q', leaseSeconds: 30 },
      }),
    );
    expect(created.status).toBe(201);
    const [row] = await waitForList(h, { taskType }, (tasks) => tasks.length === 1, 'the task listed');
    expect(row).toMatchObject({
      taskId,
      owner: 'default',
      taskType,
      status: 'SCHEDULED',
      callbackUrl: null,
      deliveryMode: 'pull',
      attempts: 0,
      lastError: null,
      executeAt: created.task.executeAt,
    });
    // Found by status and by id prefix too, as an operator looks for it.
    expect((await listTasks(h, { taskType, status: 'SCHEDULED' })).map((t) => t.taskId)).toEqual([taskId]);
    const byPrefix = await listTasks(h, { idPrefix: taskId, owner: 'default' });
    expect(byPrefix.map((t) => [t.taskId, t.deliveryMode])).toEqual([[taskId, 'pull']]);
    const got = await h.get(taskId);
    expect(got.body).toMatchObject({
      status: 'SCHEDULED',
      delivery: { mode: 'pull', queue: 'pull.list.q', leaseSeconds: 30 },
      attempts: 0,
    });
    expect(got.body.callbackUrl).toBeUndefined();
    expect(got.body.lease).toBeUndefined();
    expect((await h.post(`/api/v1/tasks/${taskId}/cancel`)).status).toBe(200);
  });

  it('get shows a leased task RUNNING with the lease and its holder; a nacked one lists RUNNING with its error; an acked one SUCCEEDED', async () => {
    const taskType = h.taskType('pull.leased');
    const taskId = uniqueId('pull-list-leased');
    await h.create(pullTask(taskType, { taskId, delivery: { mode: 'pull', leaseSeconds: 40 } }));
    const first = await leaseOne(h, { queues: [taskType], workerIdentity: 'host-a/17' });
    const leasedAt = Date.now();
    const running = (await h.get(taskId)).body;
    expect(running).toMatchObject({ status: 'RUNNING', attempts: 1, lease: { workerIdentity: 'host-a/17' } });
    const expiresAt = Date.parse(running.lease!.expiresAt);
    expect(expiresAt).toBeGreaterThan(leasedAt + 30_000);
    expect(expiresAt).toBeLessThanOrEqual(Date.parse(first.leaseExpiresAt) + 2_000);
    // While its first attempt is leased, visibility still says SCHEDULED (workflow shape v2 writes
    // no status while a first attempt is in flight: docs/architecture.md); the list names its target.
    const [leasedRow] = await waitForList(h, { taskType }, (t) => t.length === 1, 'listed');
    expect(leasedRow).toMatchObject({ status: 'SCHEDULED', deliveryMode: 'pull', callbackUrl: null });

    await settle(h, 'nack', { leaseToken: first.leaseToken, reason: 'inventory locked' });
    await waitUntilRetrying(h, taskId);
    // A retrying task is written RUNNING, with its attempts and last error, as a callback task is.
    const [retrying] = await waitForList(
      h,
      { taskType, status: 'RUNNING' },
      (t) => t.length === 1,
      'the retrying task listed RUNNING',
    );
    expect(retrying).toMatchObject({
      deliveryMode: 'pull',
      attempts: 1,
      lastError: { message: 'inventory locked' },
    });
    expect((await h.get(taskId)).body.lease).toBeUndefined();

    const second = await leaseOne(h, { queues: [taskType], workerIdentity: 'host-b/3' });
    expect(second.task).toMatchObject({ attempt: 2, idempotencyKey: first.task.idempotencyKey });
    expect((await h.get(taskId)).body.lease?.workerIdentity).toBe('host-b/3');
    await settle(h, 'ack', { leaseToken: second.leaseToken });
    await waitForList(
      h,
      { taskType, status: 'SUCCEEDED' },
      (t) => t.length === 1 && t[0]!.attempts === 2 && t[0]!.deliveryMode === 'pull',
      'the task listed SUCCEEDED after 2 attempts',
    );
  });
});

describe('create', () => {
  it('a batch creates pull tasks item by item: created, invalid, repeat and conflict, and only the created are leased', async () => {
    const taskType = h.taskType('pull.batch');
    const a = pullTask(taskType, { taskId: uniqueId('pull-batch-a'), payload: { n: 'a' } });
    const b = pullTask(taskType, {
      taskId: uniqueId('pull-batch-b'),
      payload: { n: 'b' },
      delivery: { mode: 'pull', queue: `${taskType}.b`, leaseSeconds: 20 },
    });
    const invalid = pullTask(taskType, {
      taskId: uniqueId('pull-batch-bad'),
      delivery: { mode: 'pull', leaseSeconds: 1 },
    });
    const otherQueue = { ...a, delivery: { mode: 'pull', queue: `${taskType}.other` } };
    const { status, body } = await h.call('POST', '/api/v1/tasks/batch', {
      payload: { tasks: [a, b, invalid, a, otherQueue] },
    });
    expect(status).toBe(200);
    const results = body.results as { status: number; task?: any; error?: any }[];
    expect(results.map((r) => r.status)).toEqual([201, 201, 400, 200, 409]);
    expect(results[1]!.task.delivery).toEqual({ mode: 'pull', queue: `${taskType}.b`, leaseSeconds: 20 });
    expect(results[2]!.error.details.map((d: { field: string }) => d.field)).toContain(
      'delivery.leaseSeconds',
    );
    expect(results[4]!.error.code).toBe('TASK_CONFLICT');
    expect((await h.get(invalid.taskId as string)).status).toBe(404);

    const leasedA = await leaseOne(h, { queues: [taskType] });
    const leasedB = await leaseOne(h, { queues: [`${taskType}.b`] });
    expect([leasedA.task.taskId, leasedA.task.payload]).toEqual([a.taskId, { n: 'a' }]);
    expect([leasedB.task.taskId, leasedB.task.payload]).toEqual([b.taskId, { n: 'b' }]);
    for (const one of [leasedA, leasedB]) await settle(h, 'ack', { leaseToken: one.leaseToken });
    // The repeat made no second task: nothing else is on the queues.
    expect((await lease(h, { queues: [taskType, `${taskType}.other`], waitSeconds: 1 })).leases).toEqual([]);
    await waitForStatus(h, a.taskId as string, 'SUCCEEDED');
    await waitForStatus(h, b.taskId as string, 'SUCCEEDED');
  });

  it('the same body again is the same task (200); the same id with another delivery or a callback is a 409', async () => {
    const taskType = h.taskType('pull.idem');
    const body = pullTask(taskType, {
      taskId: uniqueId('pull-idem'),
      delaySeconds: 3600,
      delivery: { mode: 'pull', queue: `${taskType}.q`, leaseSeconds: 30 },
    });
    const first = await h.create(body);
    expect(first.status).toBe(201);
    const again = await h.create(body);
    expect(again.status).toBe(200);
    expect(again.task).toEqual(first.task);
    for (const changed of [
      { delivery: { mode: 'pull', queue: `${taskType}.other`, leaseSeconds: 30 } },
      { delivery: { mode: 'pull', queue: `${taskType}.q`, leaseSeconds: 31 } },
      { delivery: undefined, callbackUrl: h.receiver.url },
    ]) {
      const conflict = await h.create({ ...body, ...changed });
      expect(conflict.status, JSON.stringify(changed)).toBe(409);
      expect((conflict.raw as { error: { code: string } }).error.code).toBe('TASK_CONFLICT');
    }
    expect((await h.get(body.taskId as string)).body.delivery).toEqual(first.task.delivery);
    expect((await h.post(`/api/v1/tasks/${body.taskId as string}/cancel`)).status).toBe(200);
  });
});

describe('before it is due', () => {
  it('rescheduled earlier, it is leased at the new time; rescheduled later, not at the old time but at the new one', async () => {
    const taskType = h.taskType('pull.resched');
    const earlier = uniqueId('pull-earlier');
    await h.create(pullTask(taskType, { taskId: earlier, delaySeconds: 3600 }));
    const moved = await h.post(`/api/v1/tasks/${earlier}/reschedule`, { delaySeconds: 1 });
    expect(moved.status).toBe(200);
    const leasedEarly = await leaseOne(h, { queues: [taskType] });
    expect(leasedEarly.task).toMatchObject({ taskId: earlier, attempt: 1, executeAt: moved.body.executeAt });
    await settle(h, 'ack', { leaseToken: leasedEarly.leaseToken });
    await waitForStatus(h, earlier, 'SUCCEEDED');

    const later = uniqueId('pull-later');
    const created = await h.create(pullTask(taskType, { taskId: later, delaySeconds: 6 }));
    const pushed = await h.post(`/api/v1/tasks/${later}/reschedule`, { delaySeconds: 14 });
    expect(pushed.status).toBe(200);
    const newDue = Date.parse(pushed.body.executeAt);
    // Past the old due time (and its 1-s timer granularity), nothing is on the queue.
    await nothingLeasedUntil(taskType, Date.parse(created.task.executeAt) + 2_000);
    const leasedLate = await leaseOne(h, { queues: [taskType], waitSeconds: 20 });
    expect(Date.now()).toBeGreaterThanOrEqual(newDue);
    expect(leasedLate.task).toMatchObject({ taskId: later, attempt: 1, executeAt: pushed.body.executeAt });
    await settle(h, 'ack', { leaseToken: leasedLate.leaseToken });
    expect((await waitForStatus(h, later, 'SUCCEEDED')).attempts).toBe(1);
  });

  it('cancelled, it is never leased; a reschedule after that is refused', async () => {
    const taskType = h.taskType('pull.cancel');
    const taskId = uniqueId('pull-cancel');
    const created = await h.create(pullTask(taskType, { taskId, delaySeconds: 3 }));
    const cancelled = await h.post(`/api/v1/tasks/${taskId}/cancel`);
    expect(cancelled.body.status).toBe('CANCELLED');
    await nothingLeasedUntil(taskType, Date.parse(created.task.executeAt) + 2_000);
    const refused = await h.post(`/api/v1/tasks/${taskId}/reschedule`, { delaySeconds: 1 });
    expect(refused.status).toBe(409);
    expect((await h.get(taskId)).body).toMatchObject({ status: 'CANCELLED', attempts: 0 });
  });
});

describe('bulk actions and replay', () => {
  it('a bulk cancel of the type cancels the waiting, the due and the leased pull task; none is leased after', async () => {
    const taskType = h.taskType('pull.bulkcancel');
    const waiting = uniqueId('pull-bc-waiting');
    const due = uniqueId('pull-bc-due');
    const held = uniqueId('pull-bc-held');
    await h.create(pullTask(taskType, { taskId: waiting, delaySeconds: 3600 }));
    await h.create(pullTask(taskType, { taskId: held }));
    const leased = await leaseOne(h, { queues: [taskType] });
    expect(leased.task.taskId).toBe(held);
    await h.create(pullTask(taskType, { taskId: due }));
    await waitForList(h, { taskType }, (tasks) => tasks.length === 3, 'three pull tasks listed');

    const response = await h.post('/api/v1/tasks/cancel', { taskType });
    expect(response.status).toBe(202);
    expect(response.body).toMatchObject({ operation: 'cancel', matched: 3 });
    expect(await waitForBatch(h, response.body.jobId)).toMatchObject({ completed: 3, failed: 0 });
    for (const taskId of [waiting, due, held]) await waitForStatus(h, taskId, 'CANCELLED');
    const ack = await settle(h, 'ack', { leaseToken: leased.leaseToken });
    expect([ack.status, ack.body.error.code]).toEqual([409, 'TASK_CANCELLED']);
    expect((await lease(h, { queues: [taskType], waitSeconds: 2 })).leases).toEqual([]);
    expect((await h.get(held)).body.status).toBe('CANCELLED');
  });

  it('a bulk replay of FAILED pull tasks puts each back on its queue as attempt 1 with the same key', async () => {
    const taskType = h.taskType('pull.bulk');
    const ids = [0, 1, 2].map((i) => uniqueId(`pull-bulk-${i}`));
    for (const taskId of ids) await h.create(pullTask(taskType, { taskId, maxRetries: 0 }));
    const keys = new Map<string, string>();
    for (let i = 0; i < ids.length; i++) {
      const leased = await leaseOne(h, { queues: [taskType] });
      keys.set(leased.task.taskId, leased.task.idempotencyKey);
      await settle(h, 'nack', { leaseToken: leased.leaseToken, retryable: false, reason: `bad ${i}` });
    }
    for (const taskId of ids) await waitForStatus(h, taskId, 'FAILED');
    await waitForList(
      h,
      { status: 'FAILED', taskType },
      (tasks) => tasks.length === 3 && tasks.every((t) => t.deliveryMode === 'pull'),
      'three pull dead letters listed',
    );

    const response = await h.post('/api/v1/tasks/replay', { taskType, status: 'FAILED' });
    expect(response.status).toBe(202);
    expect(response.body).toMatchObject({ operation: 'replay', matched: 3 });
    expect(await waitForBatch(h, response.body.jobId)).toMatchObject({ completed: 3, failed: 0 });

    const again = new Map<string, number>();
    for (let i = 0; i < ids.length; i++) {
      const leased = await leaseOne(h, { queues: [taskType] });
      expect(leased.task.idempotencyKey).toBe(keys.get(leased.task.taskId));
      again.set(leased.task.taskId, leased.task.attempt);
      await settle(h, 'ack', { leaseToken: leased.leaseToken });
    }
    expect(Object.fromEntries(again)).toEqual(Object.fromEntries(ids.map((id) => [id, 1])));
    for (const taskId of ids) expect((await waitForStatus(h, taskId, 'SUCCEEDED')).attempts).toBe(1);
    expect((await lease(h, { queues: [taskType], waitSeconds: 1 })).leases).toEqual([]);
  });

  it('a single replay with an edited payload, more retries and a delay is leased with them, not before', async () => {
    const taskType = h.taskType('pull.replay');
    const taskId = uniqueId('pull-replay');
    await h.create(pullTask(taskType, { taskId, maxRetries: 0, payload: { address: 'old' } }));
    const first = await leaseOne(h, { queues: [taskType] });
    await settle(h, 'nack', { leaseToken: first.leaseToken, retryable: false, reason: 'bad address' });
    await waitForStatus(h, taskId, 'FAILED');

    const replayed = await h.post(`/api/v1/tasks/${taskId}/replay`, {
      payload: { address: 'new' },
      maxRetries: 1,
      delaySeconds: 3,
    });
    expect(replayed.status).toBe(200);
    expect(replayed.body).toMatchObject({
      status: 'SCHEDULED',
      payload: { address: 'new' },
      maxRetries: 1,
      delivery: { mode: 'pull', queue: taskType },
    });
    const due = Date.parse(replayed.body.executeAt);
    const second = await leaseOne(h, { queues: [taskType] });
    expect(Date.now()).toBeGreaterThanOrEqual(due);
    expect(second.task).toMatchObject({
      taskId,
      attempt: 1,
      payload: { address: 'new' },
      idempotencyKey: first.task.idempotencyKey,
    });
    // maxRetries 1 of the replay: a nack is retried once more instead of dead-lettering.
    await settle(h, 'nack', { leaseToken: second.leaseToken, reason: 'still busy' });
    const third = await leaseOne(h, { queues: [taskType] });
    expect(third.task.attempt).toBe(2);
    await settle(h, 'ack', { leaseToken: third.leaseToken });
    const done = await waitForStatus(h, taskId, 'SUCCEEDED');
    expect(done.attemptHistory?.map((a) => a.outcome)).toEqual(['RETRYABLE_ERROR', 'SUCCEEDED']);
  });
});
