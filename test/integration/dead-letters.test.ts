/**
 * Dead letters: the FAILED list says why each task failed; replay (one task, or every match in one
 * server-side batch) runs it again as a new run of the same workflow id with the same
 * Idempotency-Key; bulk cancel stops a whole type; an operator's CLI reset re-delivers too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BatchJob } from '../../src/contract/batches.js';
import type { Task } from '../../src/contract/tasks.js';
import { Harness } from '../helpers/harness.js';
import type { ScriptedResponse } from '../helpers/receiver.js';
import {
  deadLetter as deadLetterOf,
  uniqueId,
  waitForBatch as waitForBatchOf,
  waitForList,
  waitForStatus,
  waitUntilRetrying,
} from '../helpers/tasks.js';
import { runsOf, temporalOk } from '../helpers/temporal-cli.js';

let h: Harness;
beforeAll(async () => {
  h = await Harness.start();
});
afterAll(async () => {
  await h?.stop();
});

const FAILS_THEN_SUCCEEDS: ScriptedResponse[] = [{ status: 500 }, { status: 200 }];

const deadLetter = (
  taskType: string,
  prefix: string,
  fields: Record<string, unknown> = {},
  script = FAILS_THEN_SUCCEEDS,
): Promise<Task> => deadLetterOf(h, taskType, prefix, fields, script);

const replay = (taskId: string, body?: unknown) =>
  h.post(`/api/v1/tasks/${encodeURIComponent(taskId)}/replay`, body);

const waitForBatch = (jobId: string): Promise<BatchJob> => waitForBatchOf(h, jobId);

describe('the dead-letter list', () => {
  it('GET ?status=FAILED&taskType= lists the failed tasks of the type with lastError and attempts', async () => {
    const taskType = h.taskType('dlq.list');
    const exhausted = await deadLetter(taskType, 'exhausted', { maxRetries: 1 }, [{ status: 500 }]);
    const refused = await deadLetter(taskType, 'refused', { maxRetries: 5 }, [{ status: 422 }]);
    const delivered = await h.create({ taskType, payload: {}, delaySeconds: 0, callbackUrl: h.receiver.url });
    const scheduled = await h.create({
      taskType,
      payload: {},
      delaySeconds: 60,
      callbackUrl: h.receiver.url,
    });
    await waitForStatus(h, delivered.task.taskId, 'SUCCEEDED');

    const tasks = await waitForList(
      h,
      { status: 'FAILED', taskType },
      (list) => list.length >= 2,
      'two dead letters',
    );
    expect(tasks).toHaveLength(2);
    const byId = new Map(tasks.map((task) => [task.taskId, task]));
    expect(byId.get(exhausted.taskId)).toMatchObject({
      taskType,
      status: 'FAILED',
      attempts: 2,
      lastError: { statusCode: 500, message: 'callback answered HTTP 500' },
      callbackUrl: h.receiver.url,
      completedAt: exhausted.completedAt,
    });
    expect(byId.get(refused.taskId)).toMatchObject({
      status: 'FAILED',
      attempts: 1,
      lastError: { statusCode: 422, message: 'callback answered HTTP 422' },
    });
    // The list and GET agree on why.
    expect(byId.get(exhausted.taskId)?.lastError).toEqual(exhausted.lastError);

    expect((await h.post(`/api/v1/tasks/${scheduled.task.taskId}/cancel`)).status).toBe(200);
  });
});

describe('replay of one task', () => {
  it('with an edited payload reaches the callback with the new payload and the same Idempotency-Key; the earlier run stays', async () => {
    const taskType = h.taskType('dlq.replay');
    const failed = await deadLetter(taskType, 'edited', {
      payload: { orderId: '10023', currency: 'EUR ' },
      traceId: 'trace-edited',
    });
    const { taskId } = failed;
    await waitForList(
      h,
      { status: 'FAILED', taskType },
      (list) => list.some((t) => t.taskId === taskId),
      'the task in the dead-letter list',
    );

    const replayed = await replay(taskId, {
      payload: { orderId: '10023', currency: 'EUR' },
      payloadVersion: 2,
    });
    expect(replayed.status).toBe(200);
    expect(replayed.body).toMatchObject({
      taskId,
      taskType,
      status: 'SCHEDULED',
      attempts: 0,
      lastError: null,
      payload: { orderId: '10023', currency: 'EUR' },
      payloadVersion: 2,
      createdAt: failed.createdAt,
      traceId: 'trace-edited',
    });

    const [first, second] = await h.receiver.waitForCalls(taskId, 2);
    expect(first!.body.payload).toEqual({ orderId: '10023', currency: 'EUR ' });
    expect(second!.body).toMatchObject({
      taskId,
      payload: { orderId: '10023', currency: 'EUR' },
      payloadVersion: 2,
      attempt: 1,
      traceId: 'trace-edited',
    });
    expect(second!.headers['idempotency-key']).toBe(taskId);
    expect(second!.headers['idempotency-key']).toBe(first!.headers['idempotency-key']);
    expect(second!.headers['x-task-attempt']).toBe('1');

    expect(await waitForStatus(h, taskId, 'SUCCEEDED')).toMatchObject({
      attempts: 1,
      lastError: null,
      payloadVersion: 2,
    });
    expect(h.receiver.callsFor(taskId)).toHaveLength(2);
    // Two runs of one workflow id: the dead letter's run is still there to read.
    expect((await runsOf(taskId)).map((run) => run.status)).toEqual([
      'WORKFLOW_EXECUTION_STATUS_COMPLETED',
      'WORKFLOW_EXECUTION_STATUS_FAILED',
    ]);
    await waitForList(
      h,
      { status: 'FAILED', taskType },
      (list) => !list.some((t) => t.taskId === taskId),
      'the task to leave the dead-letter list',
    );
  });

  it('runs a CANCELLED task now by default', async () => {
    const created = await h.create({
      taskType: h.taskType('dlq.cancelled'),
      payload: {},
      delaySeconds: 60,
      callbackUrl: h.receiver.url,
    });
    const { taskId } = created.task;
    expect((await h.post(`/api/v1/tasks/${taskId}/cancel`)).body.status).toBe('CANCELLED');

    const replayed = await replay(taskId);
    expect(replayed.status).toBe(200);
    expect(replayed.body.status).toBe('SCHEDULED');
    expect(Date.parse(replayed.body.executeAt)).toBeLessThan(Date.parse(created.task.executeAt) - 50_000);
    const [call] = await h.receiver.waitForCalls(taskId, 1);
    expect(call!.headers['idempotency-key']).toBe(taskId);
    await waitForStatus(h, taskId, 'SUCCEEDED');
  });

  const states: Array<{ state: string; setUp: (taskType: string) => Promise<string> }> = [
    {
      state: 'SCHEDULED',
      setUp: async (taskType) =>
        (await h.create({ taskType, payload: {}, delaySeconds: 60, callbackUrl: h.receiver.url })).task
          .taskId,
    },
    {
      state: 'RUNNING',
      setUp: async (taskType) => {
        const taskId = uniqueId('replay-running');
        h.receiver.script(taskId, [{ status: 503 }, { status: 200 }]);
        await h.create({
          taskType,
          taskId,
          payload: {},
          delaySeconds: 0,
          callbackUrl: h.receiver.url,
          maxRetries: 1,
        });
        await waitUntilRetrying(h, taskId);
        return taskId;
      },
    },
    {
      state: 'SUCCEEDED',
      setUp: async (taskType) => {
        const { task } = await h.create({
          taskType,
          payload: {},
          delaySeconds: 0,
          callbackUrl: h.receiver.url,
        });
        await waitForStatus(h, task.taskId, 'SUCCEEDED');
        return task.taskId;
      },
    },
  ];

  it.each(states)('of a $state task: 409 FAILED_PRECONDITION and no new run', async ({ state, setUp }) => {
    const taskId = await setUp(h.taskType('dlq.refused'));
    const response = await replay(taskId, { payload: { replayed: true } });
    expect(response.status).toBe(409);
    expect(response.body.error).toMatchObject({
      code: 'FAILED_PRECONDITION',
      message: expect.stringContaining(state),
    });
    expect(await runsOf(taskId)).toHaveLength(1);
    const after = (await h.get(taskId)).body;
    expect(after.payload).toEqual({});
    if (after.status === 'SCHEDULED') await h.post(`/api/v1/tasks/${taskId}/cancel`);
  });

  it('of an unknown id: 404 TASK_NOT_FOUND', async () => {
    const response = await replay(uniqueId('no-such-task'));
    expect(response.status).toBe(404);
    expect(response.body.error.code).toBe('TASK_NOT_FOUND');
  });
});

describe('bulk operations', () => {
  it('POST /tasks/replay re-delivers every FAILED task of the type in one batch job', async () => {
    const taskType = h.taskType('dlq.bulk');
    const failed = await Promise.all(Array.from({ length: 20 }, (_, i) => deadLetter(taskType, `bulk-${i}`)));
    const ids = failed.map((task) => task.taskId);
    await waitForList(
      h,
      { status: 'FAILED', taskType, pageSize: 100 },
      (list) => list.length === 20,
      '20 dead letters in the list',
    );

    const started = Date.now();
    const response = await h.post('/api/v1/tasks/replay', { taskType, status: 'FAILED' });
    expect(response.status).toBe(202);
    expect(response.body).toMatchObject({ operation: 'replay', matched: 20 });
    expect(response.body.jobId).toEqual(expect.any(String));

    const job = await waitForBatch(response.body.jobId);
    expect(job).toMatchObject({
      jobId: response.body.jobId,
      operation: 'replay',
      state: 'COMPLETED',
      matched: 20,
      completed: 20,
      failed: 0,
    });

    for (const taskId of ids) {
      const calls = await h.receiver.waitForCalls(taskId, 2);
      expect(calls[1]!.headers).toMatchObject({ 'idempotency-key': taskId, 'x-task-attempt': '1' });
      await waitForStatus(h, taskId, 'SUCCEEDED');
    }
    console.log(`bulk replay of 20 dead letters: all SUCCEEDED ${Date.now() - started} ms after the request`);
    expect(ids.map((taskId) => h.receiver.callsFor(taskId).length)).toEqual(ids.map(() => 2));
    expect((await runsOf(ids[0]!)).map((run) => run.status)).toEqual([
      'WORKFLOW_EXECUTION_STATUS_COMPLETED',
      'WORKFLOW_EXECUTION_STATUS_FAILED',
    ]);
    await waitForList(
      h,
      { status: 'FAILED', taskType },
      (list) => list.length === 0,
      'an empty dead-letter list',
    );
  });

  it('POST /tasks/replay acts on the latest run only: a task already replayed is not delivered again', async () => {
    const taskType = h.taskType('dlq.bulk-latest');
    const waiting = await deadLetter(taskType, 'waiting');
    // Replayed by hand and delivered since: its FAILED run is history, not a dead letter.
    const fixed = await deadLetter(taskType, 'fixed');
    expect((await replay(fixed.taskId)).status).toBe(200);
    await waitForStatus(h, fixed.taskId, 'SUCCEEDED');
    // Replayed by hand and failed again: two FAILED runs, one dead letter.
    const twice = await deadLetter(taskType, 'twice', {}, [
      { status: 500 },
      { status: 500 },
      { status: 200 },
    ]);
    expect((await replay(twice.taskId)).status).toBe(200);
    await h.receiver.waitForCalls(twice.taskId, 2);
    await waitForStatus(h, twice.taskId, 'FAILED');
    const deadLetters = await waitForList(
      h,
      { status: 'FAILED', taskType },
      (list) => list.length === 2 && list.every((t) => [waiting.taskId, twice.taskId].includes(t.taskId)),
      'the two current dead letters',
    );
    expect(deadLetters).toHaveLength(2);

    const response = await h.post('/api/v1/tasks/replay', { taskType, status: 'FAILED' });
    expect(response.status).toBe(202);
    const job = await waitForBatch(response.body.jobId);
    console.log(
      `bulk replay over earlier runs: answered matched=${response.body.matched}, job ${JSON.stringify(job)}`,
    );
    expect(job).toMatchObject({ state: 'COMPLETED', failed: 0 });

    await h.receiver.waitForCalls(waiting.taskId, 2);
    await h.receiver.waitForCalls(twice.taskId, 3);
    await waitForStatus(h, waiting.taskId, 'SUCCEEDED');
    await waitForStatus(h, twice.taskId, 'SUCCEEDED');
    // The job is complete, so any run it made exists by now.
    expect((await runsOf(fixed.taskId)).map((run) => run.status)).toEqual([
      'WORKFLOW_EXECUTION_STATUS_COMPLETED',
      'WORKFLOW_EXECUTION_STATUS_FAILED',
    ]);
    expect(await runsOf(twice.taskId)).toHaveLength(3);
    expect(h.receiver.callsFor(fixed.taskId)).toHaveLength(2);
    expect(h.receiver.callsFor(twice.taskId)).toHaveLength(3);
    expect(h.receiver.callsFor(waiting.taskId)).toHaveLength(2);
    expect(response.body.matched).toBe(2);
  });

  it('POST /tasks/cancel cancels every SCHEDULED task of the type; none of them fires', async () => {
    const taskType = h.taskType('dlq.cancel');
    const dueAt = new Date(Date.now() + 6000).toISOString();
    const created = await Promise.all(
      Array.from({ length: 5 }, () =>
        h.create({ taskType, payload: {}, executeAt: dueAt, callbackUrl: h.receiver.url }),
      ),
    );
    const ids = created.map((c) => c.task.taskId);
    // Another type due just after them: it must still fire, and once it has, theirs is past.
    const sentinel = await h.create({
      taskType: h.taskType('dlq.sentinel'),
      payload: {},
      executeAt: new Date(Date.parse(dueAt) + 1000).toISOString(),
      callbackUrl: h.receiver.url,
    });
    await waitForList(
      h,
      { status: 'SCHEDULED', taskType },
      (list) => list.length === 5,
      '5 SCHEDULED tasks in the list',
    );

    const response = await h.post('/api/v1/tasks/cancel', { taskType });
    expect(response.status).toBe(202);
    expect(response.body).toMatchObject({ operation: 'cancel', matched: 5 });
    const job = await waitForBatch(response.body.jobId);
    expect(job).toMatchObject({ state: 'COMPLETED', completed: 5, failed: 0 });
    expect(Date.now()).toBeLessThan(Date.parse(dueAt)); // else the test proves nothing
    for (const taskId of ids) expect((await h.get(taskId)).body.status).toBe('CANCELLED');

    await h.receiver.waitForCalls(sentinel.task.taskId, 1);
    expect(ids.flatMap((taskId) => h.receiver.callsFor(taskId))).toEqual([]);
    await waitForList(
      h,
      { status: 'CANCELLED', taskType },
      (list) => list.length === 5,
      '5 CANCELLED tasks in the list',
    );
  });

  it('answers 202 with matched 0 and a job that completes when nothing matches; an unknown job id is 404', async () => {
    const response = await h.post('/api/v1/tasks/replay', { taskType: h.taskType('dlq.none') });
    expect(response.status).toBe(202);
    expect(response.body).toMatchObject({ operation: 'replay', matched: 0, state: 'RUNNING' });
    expect(await waitForBatch(response.body.jobId)).toMatchObject({ state: 'COMPLETED', failed: 0 });

    const unknown = await h.app.inject({ method: 'GET', url: `/api/v1/batches/${uniqueId('replay')}` });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ error: { code: 'NOT_FOUND' } });
  });
});

describe('reset from the CLI', () => {
  it('temporal workflow reset -t FirstWorkflowTask on a FAILED task re-delivers it with the same Idempotency-Key', async () => {
    const taskType = h.taskType('dlq.reset');
    const { taskId } = await deadLetter(taskType, 'reset', { payload: { invoice: 7 } });
    expect(h.receiver.callsFor(taskId)).toHaveLength(1);
    await waitForList(
      h,
      { status: 'FAILED', taskType },
      (list) => list.some((t) => t.taskId === taskId),
      'the task in the dead-letter list',
    );

    await temporalOk(['workflow', 'reset', '-w', taskId, '-t', 'FirstWorkflowTask', '--reason', 'test']);

    const [first, second] = await h.receiver.waitForCalls(taskId, 2);
    expect(second!.headers['idempotency-key']).toBe(first!.headers['idempotency-key']);
    expect(second!.headers['idempotency-key']).toBe(taskId);
    expect(second!.body).toMatchObject({ taskId, taskType, payload: { invoice: 7 }, attempt: 1 });
    expect(await waitForStatus(h, taskId, 'SUCCEEDED')).toMatchObject({ attempts: 1, lastError: null });
    expect(h.receiver.callsFor(taskId)).toHaveLength(2);
    expect((await runsOf(taskId)).map((run) => run.status)).toEqual([
      'WORKFLOW_EXECUTION_STATUS_COMPLETED',
      'WORKFLOW_EXECUTION_STATUS_FAILED',
    ]);
    await waitForList(
      h,
      { status: 'FAILED', taskType },
      (list) => list.length === 0,
      'the reset task to leave the dead-letter list',
    );
  });

  it('a task rescheduled earlier before it failed is re-delivered now, not at its original time', async () => {
    const taskId = uniqueId('reset-moved');
    h.receiver.script(taskId, FAILS_THEN_SUCCEEDS);
    const created = await h.create({
      taskType: h.taskType('dlq.reset'),
      taskId,
      payload: {},
      delaySeconds: 120,
      callbackUrl: h.receiver.url,
      maxRetries: 0,
    });
    expect((await h.post(`/api/v1/tasks/${taskId}/reschedule`, { delaySeconds: 0 })).status).toBe(200);
    await waitForStatus(h, taskId, 'FAILED');

    const resetAt = Date.now();
    await temporalOk(['workflow', 'reset', '-w', taskId, '-t', 'FirstWorkflowTask', '--reason', 'test']);
    const [, second] = await h.receiver.waitForCalls(taskId, 2, 15_000);
    console.log(`reset of a task moved earlier: re-delivered ${second!.at - resetAt} ms after the reset`);
    expect(second!.at).toBeLessThan(Date.parse(created.task.executeAt));
    await waitForStatus(h, taskId, 'SUCCEEDED');
  });
});
