/**
 * Cancel (API signal, CLI signal, CLI workflow cancel) and list by status and type.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness } from '../helpers/harness.js';
import { temporalOk } from '../helpers/temporal-cli.js';
import { waitForStatus, waitUntilRetrying } from '../helpers/tasks.js';
import { waitFor } from '../helpers/wait.js';

let h: Harness;
beforeAll(async () => {
  h = await Harness.start();
});
afterAll(async () => {
  await h?.stop();
});

const temporalCli = (...args: string[]): Promise<string> => temporalOk(args);

describe('cancel', () => {
  it('a SCHEDULED task never calls back; cancelling again is a no-op', async () => {
    const taskType = h.taskType('coupon.expire');
    const cancelled = await h.create({ taskType, payload: {}, delaySeconds: 1, callbackUrl: h.receiver.url });
    const sentinel = await h.create({ taskType, payload: {}, delaySeconds: 2, callbackUrl: h.receiver.url });

    const first = await h.post(`/api/v1/tasks/${cancelled.task.taskId}/cancel`);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ taskId: cancelled.task.taskId, status: 'CANCELLED', attempts: 0 });
    expect(first.body.completedAt).not.toBeNull();
    const again = await h.post(`/api/v1/tasks/${cancelled.task.taskId}/cancel`);
    expect(again.status).toBe(200);
    expect(again.body.status).toBe('CANCELLED');

    await h.receiver.waitForCalls(sentinel.task.taskId, 1);
    expect(h.receiver.callsFor(cancelled.task.taskId)).toHaveLength(0);
  });

  it('a RUNNING task makes no further attempt', async () => {
    const taskType = h.taskType();
    const taskId = `retrying-${randomUUID()}`;
    h.receiver.script(taskId, [{ status: 503 }]);
    await h.create({
      taskType,
      taskId,
      payload: {},
      delaySeconds: 0,
      callbackUrl: h.receiver.url,
      maxRetries: 10,
    });
    await h.receiver.waitForCalls(taskId, 1);
    const retrying = await waitUntilRetrying(h, taskId);

    const cancelled = await h.post(`/api/v1/tasks/${taskId}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'CANCELLED', nextAttemptAt: null });
    const attempts = h.receiver.callsFor(taskId).length;

    // A sentinel due after the retry that would have come.
    const sentinel = await h.create({
      taskType,
      payload: {},
      executeAt: new Date(Date.parse(retrying.nextAttemptAt!) + 1000).toISOString(),
      callbackUrl: h.receiver.url,
    });
    await h.receiver.waitForCalls(sentinel.task.taskId, 1);
    expect(h.receiver.callsFor(taskId)).toHaveLength(attempts);
  });

  it('a SUCCEEDED task cannot be cancelled: 409 FAILED_PRECONDITION', async () => {
    const { task } = await h.create({
      taskType: h.taskType(),
      payload: {},
      delaySeconds: 0,
      callbackUrl: h.receiver.url,
    });
    await waitForStatus(h, task.taskId, 'SUCCEEDED');
    const response = await h.post(`/api/v1/tasks/${task.taskId}/cancel`);
    expect(response.status).toBe(409);
    expect(response.body.error.code).toBe('FAILED_PRECONDITION');
  });

  it.each([
    {
      name: 'temporal workflow signal --name cancel',
      args: (id: string) => ['workflow', 'signal', '-w', id, '--name', 'cancel'],
    },
    { name: 'temporal workflow cancel', args: (id: string) => ['workflow', 'cancel', '-w', id] },
  ])('$name reaches the same CANCELLED result', async ({ args }) => {
    const taskType = h.taskType();
    const { task } = await h.create({ taskType, payload: {}, delaySeconds: 1, callbackUrl: h.receiver.url });
    const sentinel = await h.create({ taskType, payload: {}, delaySeconds: 2, callbackUrl: h.receiver.url });
    await temporalCli(...args(task.taskId));
    const cancelled = await waitForStatus(h, task.taskId, 'CANCELLED');
    expect(cancelled.completedAt).not.toBeNull();
    await h.receiver.waitForCalls(sentinel.task.taskId, 1);
    expect(h.receiver.callsFor(task.taskId)).toHaveLength(0);
    const listed = await temporalCli(
      'workflow',
      'list',
      '-q',
      `WorkflowId='${task.taskId}' AND TaskStatus='CANCELLED'`,
      '-o',
      'json',
    );
    expect(JSON.parse(listed)).toHaveLength(1);
  });
});

describe('list', () => {
  it('filters by status and type, newest first, with pages', async () => {
    const taskType = h.taskType('report.generate');
    const scheduled = [];
    for (let i = 0; i < 3; i++) {
      scheduled.push(
        (await h.create({ taskType, payload: { i }, delaySeconds: 3600, callbackUrl: h.receiver.url })).task
          .taskId,
      );
    }
    const failedId = `dead-${randomUUID()}`;
    h.receiver.script(failedId, [{ status: 400 }]);
    await h.create({ taskType, taskId: failedId, payload: {}, delaySeconds: 0, callbackUrl: h.receiver.url });
    await waitForStatus(h, failedId, 'FAILED');
    await h.create({
      taskType: h.taskType('other'),
      payload: {},
      delaySeconds: 3600,
      callbackUrl: h.receiver.url,
    });

    const list = (query: string) =>
      h.app.inject({ method: 'GET', url: `/api/v1/tasks?${query}` }).then((r) => r.json());
    const byType = await waitFor(async () => {
      const page = await list(`taskType=${taskType}&status=SCHEDULED`);
      return page.tasks.length === 3 && page;
    });
    expect(byType.tasks.map((t: { taskId: string }) => t.taskId)).toEqual([...scheduled].reverse());
    expect(byType.tasks[0]).toMatchObject({
      taskType,
      status: 'SCHEDULED',
      callbackUrl: h.receiver.url,
      priority: 3,
      attempts: 0,
      lastError: null,
    });

    const dead = await waitFor(async () => {
      const page = await list(`taskType=${taskType}&status=FAILED`);
      return page.tasks.length === 1 && page;
    });
    expect(dead.tasks[0]).toMatchObject({
      taskId: failedId,
      status: 'FAILED',
      attempts: 1,
      lastError: { statusCode: 400 },
    });

    const firstPage = await list(`taskType=${taskType}&pageSize=2`);
    expect(firstPage.tasks).toHaveLength(2);
    expect(firstPage.nextPageToken).toEqual(expect.any(String));
    const secondPage = await list(
      `taskType=${taskType}&pageSize=2&pageToken=${encodeURIComponent(firstPage.nextPageToken)}`,
    );
    const all = [...firstPage.tasks, ...secondPage.tasks].map((t: { taskId: string }) => t.taskId);
    expect(new Set(all)).toEqual(new Set([...scheduled, failedId]));

    const cli = JSON.parse(
      await temporalCli(
        'workflow',
        'list',
        '-q',
        `TaskType='${taskType}' AND TaskStatus='FAILED'`,
        '-o',
        'json',
      ),
    );
    expect(cli.map((w: { execution: { workflowId: string } }) => w.execution.workflowId)).toEqual([failedId]);
  });
});
