/**
 * Tasks an earlier version started with a start delay up to their due time (TASK_START_DELAY=true,
 * retired: every task now starts at once and sleeps in a workflow timer) keep working on this
 * version. Such a workflow runs no workflow task until it is due. What the server does with it
 * (checked here on the real dev server): it refuses queries ("Workflow task is not scheduled yet")
 * or, when the delay ends within the query's deadline, holds them until the first workflow task; a
 * plain signal only waits in history, while signal-with-start, an update and a cancel request run
 * the workflow at once. Every behaviour of the API must hold all the same: status, idempotent
 * create, list, cancel (API, bulk, CLI cancel, CLI signal), reschedule earlier and later, replay.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isNotStartedYet } from '../../src/tasks/legacy-start-delay.js';
import { statusQuery } from '../../src/workflows/delayed-task.js';
import { Harness } from '../helpers/harness.js';
import { startWithStartDelay } from '../helpers/start-delayed.js';
import { uniqueId, waitForBatch, waitForList, waitForStatus } from '../helpers/tasks.js';
import { historyEventTypes, temporalOk } from '../helpers/temporal-cli.js';

let h: Harness;
beforeAll(async () => {
  h = await Harness.start();
});
afterAll(async () => {
  await h?.stop();
});

const STARTED = 'EVENT_TYPE_WORKFLOW_EXECUTION_STARTED';
const count = (events: string[], type: string) => events.filter((event) => event === type).length;

async function createTask(
  prefix: string,
  fields: { delaySeconds: number; maxRetries?: number },
  taskType = h.taskType(prefix),
) {
  const body = { taskType, taskId: uniqueId(prefix), payload: { prefix }, ...fields };
  const task = await startWithStartDelay(h, body);
  return { body: { ...body, callbackUrl: h.receiver.url }, task, taskId: task.taskId };
}

describe('a task that is not due yet', () => {
  it('has run no workflow task; GET, a repeated create and the list answer from what the server holds', async () => {
    const { body, task, taskId } = await createTask('waiting', { delaySeconds: 60, maxRetries: 7 });
    expect(await historyEventTypes(taskId)).toEqual([STARTED]);

    // The server refuses a query until the first workflow task: the API reads the start input instead.
    const refused = await h.client.workflow
      .getHandle(taskId)
      .query(statusQuery)
      .then(
        () => undefined,
        (err: unknown) => err,
      );
    expect(isNotStartedYet(refused)).toBe(true);
    const got = await h.get(taskId);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(task);

    const again = await h.create(body);
    expect(again.status).toBe(200);
    expect(again.task).toEqual(task);
    const other = await h.create({ ...body, payload: { other: true } });
    expect(other.status).toBe(409);
    expect((other.raw as { error: { code: string } }).error.code).toBe('TASK_CONFLICT');

    const listed = await waitForList(
      h,
      { status: 'SCHEDULED', taskType: body.taskType },
      (tasks) => tasks.some((t) => t.taskId === taskId),
      'the waiting task in the SCHEDULED list',
    );
    expect(listed.find((t) => t.taskId === taskId)).toMatchObject({
      status: 'SCHEDULED',
      executeAt: task.executeAt,
    });
    // None of this woke the workflow.
    expect(await historyEventTypes(taskId)).toEqual([STARTED]);
  });

  it('fires at its time with one workflow task and no timer fewer than a task started at once', async () => {
    const { task, taskId } = await createTask('due', { delaySeconds: 2 });
    const [call] = await h.receiver.waitForCalls(taskId, 1);
    const lagMs = call!.at - Date.parse(task.executeAt);
    console.log(`start delay: fire lag ${lagMs} ms`);
    expect(lagMs).toBeGreaterThanOrEqual(0);
    expect(lagMs).toBeLessThan(10_000);
    await waitForStatus(h, taskId, 'SUCCEEDED');
    const events = await historyEventTypes(taskId);
    // Without a start delay (shape v2): 2 workflow tasks (start + timer; fire, local callback and
    // result) and a timer. With one: the single workflow task at the due time.
    expect(count(events, 'EVENT_TYPE_WORKFLOW_TASK_COMPLETED')).toBe(1);
    expect(count(events, 'EVENT_TYPE_TIMER_STARTED')).toBe(0);
    expect(h.receiver.callsFor(taskId)).toHaveLength(1);
  });
});

describe('cancel before the due time', () => {
  it('through the API: CANCELLED at once, listed as such, and the run is over (it can never call back)', async () => {
    const { body, taskId } = await createTask('api', { delaySeconds: 60 });
    const cancelled = await h.post(`/api/v1/tasks/${taskId}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ taskId, status: 'CANCELLED', attempts: 0 });
    expect(cancelled.body.completedAt).not.toBeNull();
    expect((await h.get(taskId)).body.status).toBe('CANCELLED');
    expect((await h.post(`/api/v1/tasks/${taskId}/cancel`)).body.status).toBe('CANCELLED');
    expect((await h.client.workflow.getHandle(taskId).describe()).status.name).toBe('COMPLETED');
    await waitForList(
      h,
      { status: 'CANCELLED', taskType: body.taskType },
      (tasks) => tasks.some((t) => t.taskId === taskId),
      'the cancelled task in the CANCELLED list',
    );
    expect(h.receiver.callsFor(taskId)).toHaveLength(0);

    // Replay runs it again as a new run, with a start delay of its own.
    const replayed = await h.post(`/api/v1/tasks/${taskId}/replay`, { delaySeconds: 1 });
    expect(replayed.status).toBe(200);
    expect(replayed.body.status).toBe('SCHEDULED');
    await h.receiver.waitForCalls(taskId, 1);
    await waitForStatus(h, taskId, 'SUCCEEDED');
    expect(h.receiver.callsFor(taskId)).toHaveLength(1);
  });

  it('seconds before the due time: GET and cancel answer before it, and the task never calls back', async () => {
    // The server holds a query until the first workflow task when the delay ends within the query's
    // deadline: read from the history, a GET does not wait for the due time, nor does a cancel, which
    // would otherwise be sent after the task had fired.
    const taskType = h.taskType('soon');
    const { task, taskId } = await createTask('soon', { delaySeconds: 3 }, taskType);
    const sentinel = await createTask('sentinel', { delaySeconds: 4 }, taskType);
    const dueMs = Date.parse(task.executeAt);
    expect((await h.get(taskId)).body).toMatchObject({ status: 'SCHEDULED', attempts: 0 });
    expect(Date.now()).toBeLessThan(dueMs);
    const cancelled = await h.post(`/api/v1/tasks/${taskId}/cancel`);
    expect(Date.now()).toBeLessThan(dueMs);
    expect(cancelled.body).toMatchObject({ taskId, status: 'CANCELLED', attempts: 0, firedAt: null });

    await h.receiver.waitForCalls(sentinel.taskId, 1);
    expect(h.receiver.callsFor(taskId)).toHaveLength(0);
    expect((await h.get(taskId)).body).toMatchObject({ status: 'CANCELLED', attempts: 0, firedAt: null });
  });

  it('bulk cancel: a batch of cancel signals; GET says CANCELLED at once, the workflows honour them when due', async () => {
    const taskType = h.taskType('bulk');
    const tasks = [
      await createTask('bulk', { delaySeconds: 15 }, taskType),
      await createTask('bulk', { delaySeconds: 15 }, taskType),
    ];
    const sentinel = await createTask('sentinel', { delaySeconds: 16 }, taskType);
    await waitForList(h, { taskType, status: 'SCHEDULED' }, (l) => l.length === 3, '3 SCHEDULED listed');
    const job = await h.post('/api/v1/tasks/cancel', { taskType, status: 'SCHEDULED' });
    expect(job.status).toBe(202);
    expect(await waitForBatch(h, job.body.jobId)).toMatchObject({ completed: 3, failed: 0 });
    expect(Date.now()).toBeLessThan(Date.parse(tasks[0]!.task.executeAt)); // else what follows proves nothing
    for (const { taskId } of tasks) {
      expect((await h.get(taskId)).body).toMatchObject({ status: 'CANCELLED', attempts: 0 });
      // The signal only waits in the history: the workflow has not run.
      expect(await historyEventTypes(taskId)).toEqual([STARTED, 'EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED']);
    }
    // At the due time each workflow's first activation holds the waiting signal: CANCELLED, no callback.
    await waitForList(h, { taskType, status: 'CANCELLED' }, (l) => l.length === 3, '3 CANCELLED listed');
    for (const { taskId } of [...tasks, sentinel]) {
      expect(await waitForStatus(h, taskId, 'CANCELLED')).toMatchObject({ attempts: 0, firedAt: null });
      expect(h.receiver.callsFor(taskId)).toHaveLength(0);
    }
  });

  it('temporal workflow cancel: the server runs the workflow at once, which ends CANCELLED', async () => {
    const { taskId } = await createTask('cli', { delaySeconds: 60 });
    await temporalOk(['workflow', 'cancel', '-w', taskId]);
    const cancelled = await waitForStatus(h, taskId, 'CANCELLED', 10_000);
    expect(cancelled.completedAt).not.toBeNull();
    expect((await h.client.workflow.getHandle(taskId).describe()).status.name).toBe('CANCELLED');
  });

  it('a cancel signal (CLI, bulk cancel) counts at once for GET, waits in history, and the workflow honours it at the due time', async () => {
    const taskType = h.taskType('signal');
    const { task, taskId } = await createTask('signal', { delaySeconds: 8 }, taskType);
    const sentinel = await createTask('sentinel', { delaySeconds: 9 }, taskType);
    await temporalOk(['workflow', 'signal', '-w', taskId, '--name', 'cancel']);
    expect((await h.get(taskId)).body).toMatchObject({ status: 'CANCELLED', attempts: 0 });
    // A plain signal does not run the workflow: until the due time, visibility still says SCHEDULED.
    expect(await historyEventTypes(taskId)).toEqual([STARTED, 'EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED']);
    expect(Date.now()).toBeLessThan(Date.parse(task.executeAt)); // else the history above proves nothing

    await h.receiver.waitForCalls(sentinel.taskId, 1);
    // The workflow's first activation holds the start and the waiting signal: its handler, set before
    // anything else runs, settles the task before the (already due) fire.
    expect(await waitForStatus(h, taskId, 'CANCELLED')).toMatchObject({ attempts: 0, firedAt: null });
    await waitForList(
      h,
      { status: 'CANCELLED', taskType },
      (tasks) => tasks.some((t) => t.taskId === taskId),
      'the signalled task in the CANCELLED list',
    );
    expect(h.receiver.callsFor(taskId)).toHaveLength(0);
  });
});

describe('reschedule before the due time (the update runs the workflow first)', () => {
  it('later: fires once at the new time', async () => {
    const { task, taskId } = await createTask('later', { delaySeconds: 1.5 });
    const moved = await h.post(`/api/v1/tasks/${taskId}/reschedule`, { delaySeconds: 4 });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ taskId, status: 'SCHEDULED', createdAt: task.createdAt });
    const newTime = Date.parse(moved.body.executeAt);
    expect(newTime - Date.parse(task.executeAt)).toBeGreaterThan(2000);
    const [call] = await h.receiver.waitForCalls(taskId, 1);
    expect(call!.at).toBeGreaterThanOrEqual(newTime);
    await waitForStatus(h, taskId, 'SUCCEEDED');
    expect(h.receiver.callsFor(taskId)).toHaveLength(1);
  });

  it('earlier: fires once at the new time, long before the old one', async () => {
    const { taskId } = await createTask('earlier', { delaySeconds: 60 });
    const executeAt = new Date(Date.now() + 1500).toISOString();
    const moved = await h.post(`/api/v1/tasks/${taskId}/reschedule`, { executeAt });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ taskId, status: 'SCHEDULED', executeAt });
    const [call] = await h.receiver.waitForCalls(taskId, 1);
    expect(call!.at).toBeGreaterThanOrEqual(Date.parse(executeAt));
    expect(call!.at - Date.parse(executeAt)).toBeLessThan(10_000);
    await waitForStatus(h, taskId, 'SUCCEEDED');
    expect(h.receiver.callsFor(taskId)).toHaveLength(1);
  });

  it('an invalid time is refused before anything reaches the workflow', async () => {
    const { taskId } = await createTask('invalid', { delaySeconds: 60 });
    const refused = await h.post(`/api/v1/tasks/${taskId}/reschedule`, { executeAt: '2026-12-03T10:00:00' });
    expect(refused.status).toBe(400);
    expect(await historyEventTypes(taskId)).toEqual([STARTED]);
  });

  it('a task whose cancel signal waits in history is refused with 409 and stays CANCELLED', async () => {
    const { taskId } = await createTask('cancelled', { delaySeconds: 60 });
    await temporalOk(['workflow', 'signal', '-w', taskId, '--name', 'cancel']);
    const refused = await h.post(`/api/v1/tasks/${taskId}/reschedule`, { delaySeconds: 5 });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('FAILED_PRECONDITION');
    expect((await h.get(taskId)).body.status).toBe('CANCELLED');
  });
});
