/**
 * What a callback attempt does on the wire and how its outcome is read, through the real activity:
 * timeouts and network errors are retried, redirects are not followed, Retry-After is honoured as an
 * HTTP date and capped at 10 minutes; and cancels and creates at the edges of a task's life.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CALLBACK_BACKOFF } from '../../src/shared/constants.js';
import { Harness } from '../helpers/harness.js';
import { freePort } from '../helpers/processes.js';
import { uniqueId, waitForStatus, waitUntilRetrying } from '../helpers/tasks.js';
import { waitFor } from '../helpers/wait.js';

let h: Harness;
beforeAll(async () => {
  h = await Harness.start();
});
afterAll(async () => {
  await h?.stop();
});

function create(taskId: string, fields: Record<string, unknown> = {}) {
  return h.create({
    taskType: h.taskType('cb'),
    taskId,
    payload: {},
    delaySeconds: 0,
    callbackUrl: h.receiver.url,
    ...fields,
  });
}

describe('callback attempts', () => {
  it('POSTs, and retries an attempt that timed out', async () => {
    const taskId = uniqueId('timeout');
    h.receiver.script(taskId, [{ status: 200, delayMs: 3000 }, { status: 200 }]);
    await create(taskId, { timeoutMs: 300, maxRetries: 1 });
    const done = await waitForStatus(h, taskId, 'SUCCEEDED');
    expect(done.attempts).toBe(2);
    expect(done.lastError?.message).toBe('callback timed out after 300 ms');
    const calls = h.receiver.callsFor(taskId);
    expect(calls.map((call) => [call.method, call.headers['x-task-attempt']])).toEqual([
      ['POST', '1'],
      ['POST', '2'],
    ]);
  });

  it('retries a network error (connection refused) until retries run out', async () => {
    const taskId = uniqueId('refused');
    const closedPort = await freePort();
    await create(taskId, { callbackUrl: `http://127.0.0.1:${closedPort}/cb`, maxRetries: 1 });
    const failed = await waitForStatus(h, taskId, 'FAILED');
    expect(failed.attempts).toBe(2);
    expect(failed.lastError?.message).toMatch(/^callback request failed: ECONNREFUSED/);
  });

  it('does not follow a redirect: a 3xx is a permanent failure', async () => {
    const taskId = uniqueId('redirect');
    h.receiver.script(taskId, [{ status: 302, headers: { location: `${h.receiver.url}/elsewhere` } }]);
    await create(taskId, { callbackUrl: `${h.receiver.url}/here`, maxRetries: 3 });
    const failed = await waitForStatus(h, taskId, 'FAILED');
    expect(failed).toMatchObject({ attempts: 1, lastError: { statusCode: 302 } });
    expect(h.receiver.received.filter((call) => call.path === '/elsewhere')).toEqual([]);
    expect(h.receiver.callsFor(taskId)).toHaveLength(1);
  });

  it('honours Retry-After as an HTTP date on 503', async () => {
    const taskId = uniqueId('retry-date');
    // Whole seconds, as HTTP dates have: at least 3 s ahead, far more than the 1 s backoff.
    const retryAt = Math.ceil((Date.now() + 3000) / 1000) * 1000;
    h.receiver.script(taskId, [
      { status: 503, headers: { 'retry-after': new Date(retryAt).toUTCString() } },
      { status: 200 },
    ]);
    await create(taskId);
    const [, second] = await h.receiver.waitForCalls(taskId, 2);
    expect(second!.at).toBeGreaterThanOrEqual(retryAt - 50);
    expect(second!.at).toBeLessThanOrEqual(retryAt + 900);
  });

  it('caps a long Retry-After at 10 minutes (read from nextAttemptAt, no waiting)', async () => {
    const taskId = uniqueId('retry-cap');
    h.receiver.script(taskId, [{ status: 429, headers: { 'retry-after': '3600' } }]);
    await create(taskId);
    const [first] = await h.receiver.waitForCalls(taskId, 1);
    const retrying = await waitUntilRetrying(h, taskId);
    const waitMs = Date.parse(retrying.nextAttemptAt!) - first!.at;
    expect(waitMs).toBeGreaterThanOrEqual(CALLBACK_BACKOFF.maxMs - 1000);
    expect(waitMs).toBeLessThanOrEqual(CALLBACK_BACKOFF.maxMs + 2000);
    expect(CALLBACK_BACKOFF.maxMs).toBe(10 * 60_000);
    expect((await h.post(`/api/v1/tasks/${taskId}/cancel`)).status).toBe(200);
  });

  it('sends a traceparent derived from a trace id that is not hex', async () => {
    const taskId = uniqueId('trace');
    await create(taskId, { traceId: 'order-10023' });
    const [call] = await h.receiver.waitForCalls(taskId, 1);
    const trace = createHash('sha256').update('order-10023').digest('hex').slice(0, 32);
    expect(call!.headers.traceparent).toMatch(new RegExp(`^00-${trace}-[0-9a-f]{16}-01$`));
    expect(call!.body.traceId).toBe('order-10023');
  });
});

describe('cancel at the edges', () => {
  it('refuses to cancel a FAILED task, which stays FAILED', async () => {
    const taskId = uniqueId('cancel-failed');
    h.receiver.script(taskId, [{ status: 400 }]);
    await create(taskId);
    await waitForStatus(h, taskId, 'FAILED');
    const response = await h.post(`/api/v1/tasks/${taskId}/cancel`);
    expect(response.status).toBe(409);
    expect(response.body.error.code).toBe('FAILED_PRECONDITION');
    expect((await h.get(taskId)).body.status).toBe('FAILED');
  });

  it('cancels during an in-flight callback: CANCELLED at once, no further attempt', async () => {
    const taskId = uniqueId('cancel-in-flight');
    h.receiver.script(taskId, [{ status: 500, delayMs: 1500 }]);
    await create(taskId, { maxRetries: 3, timeoutMs: 10_000 });
    await h.receiver.waitForCalls(taskId, 1);
    const response = await h.post(`/api/v1/tasks/${taskId}/cancel`);
    expect(response.status).toBe(200);
    expect(response.body.status).toBe('CANCELLED');
    // The 500 arrives after the cancel; no retry follows it (the backoff would be 1 s). A sentinel
    // due after that retry would have come: once it has called back, the retry is past.
    await waitFor(
      async () => (await h.client.workflow.getHandle(taskId).describe()).status.name === 'COMPLETED',
    );
    const sentinel = await create(uniqueId('sentinel'), { delaySeconds: 2.5 });
    await h.receiver.waitForCalls(sentinel.task.taskId, 1);
    expect(h.receiver.callsFor(taskId)).toHaveLength(1);
    expect((await h.get(taskId)).body.status).toBe('CANCELLED');
  });
});

describe('create at the edges', () => {
  it('answers a create with the id of a closed task: 200 with that task if identical, else 409', async () => {
    const taskId = uniqueId('closed');
    const body = {
      taskType: h.taskType('closed'),
      taskId,
      payload: { a: 1 },
      delaySeconds: 0,
      callbackUrl: h.receiver.url,
    };
    expect((await h.create(body)).status).toBe(201);
    await waitForStatus(h, taskId, 'SUCCEEDED');
    const again = await h.create(body);
    expect(again.status).toBe(200);
    expect(again.task).toMatchObject({ taskId, status: 'SUCCEEDED', attempts: 1 });
    const different = await h.create({ ...body, payload: { a: 2 } });
    expect(different.status).toBe(409);
    expect((different.raw as { error: { code: string } }).error.code).toBe('TASK_CONFLICT');
    expect(h.receiver.callsFor(taskId)).toHaveLength(1);
  });

  it('starts one task for two identical creates at once', async () => {
    const taskId = uniqueId('twin');
    const body = {
      taskType: h.taskType('twin'),
      taskId,
      payload: {},
      delaySeconds: 1,
      callbackUrl: h.receiver.url,
    };
    const statuses = (await Promise.all([h.create(body), h.create(body)])).map((r) => r.status).sort();
    expect(statuses).toEqual([200, 201]);
    await waitForStatus(h, taskId, 'SUCCEEDED');
    expect(h.receiver.callsFor(taskId)).toHaveLength(1);
  });
});
