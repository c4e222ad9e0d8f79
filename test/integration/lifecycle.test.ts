/**
 * The core promise against a real dev server and a real receiver: a task fires on time, once, with
 * the contract's body and headers; status moves through every state; retries follow the backoff.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness } from '../helpers/harness.js';
import { waitForStatus, waitUntilRetrying } from '../helpers/tasks.js';

let h: Harness;
beforeAll(async () => {
  h = await Harness.start();
  // The worker's first workflow task also loads the workflow code (2.5 s on a busy machine): warm it
  // up, so that the lag measured below is the service's, not its start-up's.
  const warmUp = await h.create({
    taskType: h.taskType('warm-up'),
    payload: {},
    delaySeconds: 0,
    callbackUrl: h.receiver.url,
  });
  await h.receiver.waitForCalls(warmUp.task.taskId, 1);
});
afterAll(async () => {
  await h?.stop();
});

/**
 * How late a callback may arrive after its time: the timer firing, a workflow task, the activity
 * dispatch and the POST on loopback, on 2 shared cores. Less than the 3 s delay tested, so that a
 * doubled wait fails.
 */
const FIRE_LAG_TOLERANCE_MS = 1500;
/** How much longer than scheduled a gap between attempts may be: less than the 1 s first step. */
const LATE_TOLERANCE_MS = 900;
/** Timers may fire a little early compared with the receiver's clock. */
const EARLY_TOLERANCE_MS = 50;

/** A gap between two attempts matches the schedule: not shorter, and not later than the tolerance. */
function expectGap(gapMs: number, scheduledMs: number): void {
  expect(gapMs, `gap of ${gapMs} ms for a ${scheduledMs} ms schedule`).toBeGreaterThanOrEqual(
    scheduledMs - EARLY_TOLERANCE_MS,
  );
  expect(gapMs, `gap of ${gapMs} ms for a ${scheduledMs} ms schedule`).toBeLessThanOrEqual(
    scheduledMs + LATE_TOLERANCE_MS,
  );
}

describe('a task fires on time', () => {
  it('calls back once at its time with the contract body and headers, then is SUCCEEDED', async () => {
    const taskType = h.taskType('order.close_timeout');
    const taskId = `order-${Date.now()}`;
    const created = await h.create({
      taskType,
      taskId,
      payload: { orderId: '10023', amount: 12.5, items: [{ sku: 'a' }] },
      delaySeconds: 3,
      callbackUrl: `${h.receiver.url}/orders/close`,
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      payloadVersion: 2,
    });
    expect(created.status).toBe(201);
    expect(created.task).toMatchObject({
      taskId,
      taskType,
      status: 'SCHEDULED',
      attempts: 0,
      payloadVersion: 2,
      maxRetries: 3,
      timeoutMs: 30000,
      priority: 3,
    });
    expect(created.task.executeAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

    const [call] = await h.receiver.waitForCalls(taskId, 1);
    const lagMs = call!.at - Date.parse(created.task.executeAt);
    // Neither early nor late: a wait of twice the delay (3 s more) would fail the upper bound.
    expect(lagMs).toBeGreaterThanOrEqual(0);
    expect(lagMs).toBeLessThanOrEqual(FIRE_LAG_TOLERANCE_MS);
    expect(call!.path).toBe('/orders/close');
    expect(call!.body).toEqual({
      taskId,
      taskType,
      payload: { orderId: '10023', amount: 12.5, items: [{ sku: 'a' }] },
      payloadVersion: 2,
      executeAt: created.task.executeAt,
      attempt: 1,
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
    });
    expect(call!.headers).toMatchObject({
      'content-type': 'application/json',
      'idempotency-key': taskId,
      'x-task-id': taskId,
      'x-task-type': taskType,
      'x-task-attempt': '1',
    });
    expect(call!.headers.traceparent).toMatch(/^00-4bf92f3577b34da6a3ce929d0e0e4736-[0-9a-f]{16}-01$/);

    const done = await waitForStatus(h, taskId, 'SUCCEEDED');
    expect(done).toMatchObject({ attempts: 1, lastError: null, nextAttemptAt: null });
    expect(Date.parse(done.firedAt!)).toBeGreaterThanOrEqual(Date.parse(done.executeAt));
    expect(Date.parse(done.completedAt!)).toBeGreaterThanOrEqual(Date.parse(done.firedAt!));
    expect(h.receiver.callsFor(taskId)).toHaveLength(1);
  });

  it('accepts executeAt with an offset and reports it in UTC', async () => {
    const due = new Date(Date.now() + 1500);
    const local = new Date(due.getTime() + 8 * 3600_000).toISOString().replace('Z', '+08:00');
    const { status, task } = await h.create({
      taskType: h.taskType(),
      payload: {},
      executeAt: local,
      callbackUrl: h.receiver.url,
    });
    expect(status).toBe(201);
    expect(task.executeAt).toBe(due.toISOString());
    await h.receiver.waitForCalls(task.taskId, 1);
  });
});

describe('retries and outcomes', () => {
  it('is RUNNING with attempts, lastError and nextAttemptAt while retrying, then SUCCEEDED', async () => {
    const taskId = `retry-${Date.now()}`;
    h.receiver.script(taskId, [{ status: 503 }, { status: 500 }, { status: 200 }]);
    await h.create({
      taskType: h.taskType(),
      taskId,
      payload: {},
      delaySeconds: 0,
      callbackUrl: h.receiver.url,
      maxRetries: 3,
    });

    const retrying = await waitUntilRetrying(h, taskId);
    expect(retrying.attempts).toBe(1);
    expect(retrying.lastError).toEqual({ message: 'callback answered HTTP 503', statusCode: 503 });

    const calls = await h.receiver.waitForCalls(taskId, 3);
    expect(calls.map((c) => c.headers['x-task-attempt'])).toEqual(['1', '2', '3']);
    expect(new Set(calls.map((c) => c.headers['idempotency-key']))).toEqual(new Set([taskId]));
    // Backoff: 1 s before the 2nd attempt, 2 s before the 3rd; a 2 s / 4 s schedule fails this.
    expectGap(calls[1]!.at - calls[0]!.at, 1000);
    expectGap(calls[2]!.at - calls[1]!.at, 2000);

    const done = await waitForStatus(h, taskId, 'SUCCEEDED');
    expect(done).toMatchObject({ attempts: 3, nextAttemptAt: null });
  });

  it('fails at once on a permanent 4xx, with the reason', async () => {
    const taskId = `permanent-${Date.now()}`;
    h.receiver.script(taskId, [{ status: 422 }]);
    await h.create({
      taskType: h.taskType(),
      taskId,
      payload: {},
      delaySeconds: 0,
      callbackUrl: h.receiver.url,
      maxRetries: 5,
    });
    const failed = await waitForStatus(h, taskId, 'FAILED');
    expect(failed).toMatchObject({ attempts: 1, lastError: { statusCode: 422 } });
    expect(h.receiver.callsFor(taskId)).toHaveLength(1);
  });

  it('dead-letters after maxRetries retries', async () => {
    const taskId = `exhausted-${Date.now()}`;
    h.receiver.script(taskId, [{ status: 500 }]);
    await h.create({
      taskType: h.taskType(),
      taskId,
      payload: {},
      delaySeconds: 0,
      callbackUrl: h.receiver.url,
      maxRetries: 1,
    });
    const failed = await waitForStatus(h, taskId, 'FAILED');
    expect(failed).toMatchObject({ attempts: 2, lastError: { statusCode: 500 } });
    expect(h.receiver.callsFor(taskId)).toHaveLength(2);
  });

  it('honours Retry-After on 429', async () => {
    const taskId = `retry-after-${Date.now()}`;
    h.receiver.script(taskId, [{ status: 429, headers: { 'retry-after': '3' } }, { status: 200 }]);
    await h.create({
      taskType: h.taskType(),
      taskId,
      payload: {},
      delaySeconds: 0,
      callbackUrl: h.receiver.url,
    });
    const calls = await h.receiver.waitForCalls(taskId, 2);
    // Retry-After: 3 wins over the 1 s backoff, and is not exceeded either.
    expectGap(calls[1]!.at - calls[0]!.at, 3000);
  });
});
