/**
 * Reschedule: a SCHEDULED task moves earlier or later and fires once, at the new time. Any other
 * state is refused with 409, and a refused request leaves no trace in the task's history. The same
 * update is open to operators through the CLI.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Task } from '../../src/contract/tasks.js';
import { Harness } from '../helpers/harness.js';
import { uniqueId, waitForStatus, waitUntilRetrying } from '../helpers/tasks.js';
import { temporal, temporalOk, updateEvents } from '../helpers/temporal-cli.js';

let h: Harness;
beforeAll(async () => {
  h = await Harness.start();
});
afterAll(async () => {
  await h?.stop();
});

const reschedule = (taskId: string, body: unknown) =>
  h.post(`/api/v1/tasks/${encodeURIComponent(taskId)}/reschedule`, body);

async function createTask(prefix: string, fields: Record<string, unknown>) {
  const taskId = uniqueId(prefix);
  const created = await h.create({
    taskType: h.taskType('reschedule'),
    taskId,
    payload: { prefix },
    callbackUrl: h.receiver.url,
    ...fields,
  });
  expect(created.status).toBe(201);
  return { taskId, task: created.task };
}

describe('reschedule of a SCHEDULED task', () => {
  it('later: fires once at the new time, not at the old one', async () => {
    const { taskId, task } = await createTask('later', { delaySeconds: 1.5 });

    const moved = await reschedule(taskId, { delaySeconds: 4 });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({
      taskId,
      status: 'SCHEDULED',
      attempts: 0,
      payload: task.payload,
      createdAt: task.createdAt,
    });
    const newTime = Date.parse(moved.body.executeAt);
    expect(newTime - Date.parse(task.executeAt)).toBeGreaterThan(2000);
    expect((await h.get(taskId)).body.executeAt).toBe(moved.body.executeAt);

    const [call] = await h.receiver.waitForCalls(taskId, 1);
    const lagMs = call!.at - newTime;
    console.log(
      `rescheduled later: old due ${task.executeAt}, new due ${moved.body.executeAt}, lag behind the new time ${lagMs} ms`,
    );
    // Had the old timer fired, this first call would have come about 2.5 s before the new time.
    expect(lagMs).toBeGreaterThanOrEqual(0);
    expect(lagMs).toBeLessThan(10_000);
    expect(call!.body.executeAt).toBe(moved.body.executeAt);

    const done = await waitForStatus(h, taskId, 'SUCCEEDED');
    expect(done).toMatchObject({ attempts: 1, executeAt: moved.body.executeAt });
    expect(h.receiver.callsFor(taskId)).toHaveLength(1);
    // The accepted update is in history: the "no trace" checks below can tell the difference.
    expect(await updateEvents(taskId)).toEqual([
      'EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED',
      'EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED',
    ]);
  });

  it('earlier: fires once at the new time, long before the old one', async () => {
    const { taskId, task } = await createTask('earlier', { delaySeconds: 60 });

    const executeAt = new Date(Date.now() + 1500).toISOString();
    const moved = await reschedule(taskId, { executeAt });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ taskId, status: 'SCHEDULED', executeAt });

    const [call] = await h.receiver.waitForCalls(taskId, 1);
    const lagMs = call!.at - Date.parse(executeAt);
    console.log(
      `rescheduled earlier: old due ${task.executeAt}, new due ${executeAt}, lag behind the new time ${lagMs} ms`,
    );
    expect(lagMs).toBeGreaterThanOrEqual(0);
    expect(call!.at).toBeLessThan(Date.parse(task.executeAt));
    expect(call!.body.executeAt).toBe(executeAt);

    // SUCCEEDED means the run is closed: nothing is left to fire at the old time.
    const done = await waitForStatus(h, taskId, 'SUCCEEDED');
    expect(done).toMatchObject({ attempts: 1, executeAt });
    expect(h.receiver.callsFor(taskId)).toHaveLength(1);
  });

  it('rejects a body with both or neither of delaySeconds and executeAt, leaving no trace', async () => {
    const { taskId, task } = await createTask('bad-body', { delaySeconds: 60 });
    const cases = [
      {
        body: { delaySeconds: 5, executeAt: new Date(Date.now() + 5000).toISOString() },
        field: 'delaySeconds',
      },
      { body: {}, field: 'delaySeconds' },
      { body: { executeAt: '2026-13-01T00:00:00Z' }, field: 'executeAt' },
      { body: { delaySeconds: 365 * 24 * 3600 }, field: 'delaySeconds' },
    ];
    for (const { body, field } of cases) {
      const response = await reschedule(taskId, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error.code).toBe('INVALID_ARGUMENT');
      expect(response.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
    }
    expect((await h.get(taskId)).body).toMatchObject({ status: 'SCHEDULED', executeAt: task.executeAt });
    expect(await updateEvents(taskId)).toEqual([]);
    expect((await h.post(`/api/v1/tasks/${taskId}/cancel`)).status).toBe(200);
  });

  it('answers 404 TASK_NOT_FOUND for an unknown id', async () => {
    const response = await reschedule(uniqueId('no-such-task'), { delaySeconds: 5 });
    expect(response.status).toBe(404);
    expect(response.body.error.code).toBe('TASK_NOT_FOUND');
  });
});

describe('reschedule of a task that is not SCHEDULED', () => {
  const states: Array<{ state: string; status: Task['status']; setUp: () => Promise<string> }> = [
    {
      state: 'RUNNING (callback in flight)',
      status: 'RUNNING',
      setUp: async () => {
        const taskId = uniqueId('running');
        h.receiver.script(taskId, [{ status: 200, delayMs: 2000 }]);
        await createTask('running', { taskId, delaySeconds: 0, timeoutMs: 10_000 });
        await h.receiver.waitForCalls(taskId, 1);
        await waitForStatus(h, taskId, 'RUNNING');
        return taskId;
      },
    },
    {
      state: 'RUNNING (waiting to retry)',
      status: 'RUNNING',
      setUp: async () => {
        const taskId = uniqueId('retrying');
        h.receiver.script(taskId, [{ status: 503 }, { status: 200 }]);
        await createTask('retrying', { taskId, delaySeconds: 0, maxRetries: 1 });
        await waitUntilRetrying(h, taskId);
        return taskId;
      },
    },
    {
      state: 'SUCCEEDED',
      status: 'SUCCEEDED',
      setUp: async () => {
        const { taskId } = await createTask('succeeded', { delaySeconds: 0 });
        await waitForStatus(h, taskId, 'SUCCEEDED');
        return taskId;
      },
    },
    {
      state: 'CANCELLED',
      status: 'CANCELLED',
      setUp: async () => {
        const { taskId } = await createTask('cancelled', { delaySeconds: 60 });
        const cancelled = await h.post(`/api/v1/tasks/${taskId}/cancel`);
        expect(cancelled.body.status).toBe('CANCELLED');
        return taskId;
      },
    },
  ];

  it.each(states)('$state: 409 FAILED_PRECONDITION, no trace in history', async ({ status, setUp }) => {
    const taskId = await setUp();
    const before = (await h.get(taskId)).body;
    // The refusal below proves something only if the task really is in that state when it comes.
    expect(before.status).toBe(status);

    const response = await reschedule(taskId, { delaySeconds: 30 });
    expect(response.status).toBe(409);
    expect(response.body.error.code).toBe('FAILED_PRECONDITION');
    expect(response.body.error.message).toBe(
      `only a SCHEDULED task can be rescheduled; this one is ${status}`,
    );

    const after = (await h.get(taskId)).body;
    expect(after.executeAt).toBe(before.executeAt);
    expect(await updateEvents(taskId)).toEqual([]);
    // A task refused while RUNNING still completes as before, and only once.
    const final = status === 'RUNNING' ? await waitForStatus(h, taskId, 'SUCCEEDED') : after;
    expect(final.status).toBe(status === 'RUNNING' ? 'SUCCEEDED' : status);
    expect(final.executeAt).toBe(before.executeAt);
    expect(await updateEvents(taskId)).toEqual([]);
  });
});

describe('reschedule from the CLI', () => {
  it('temporal workflow update execute --name reschedule moves the task; a bad time is refused without a trace', async () => {
    const { taskId } = await createTask('cli', { delaySeconds: 60 });

    // A time without an offset would be read in whatever time zone the worker runs in.
    for (const executeAt of ['not a time', new Date(Date.now() + 5000).toISOString().replace('Z', '')]) {
      const refused = await temporal([
        'workflow',
        'update',
        'execute',
        '--name',
        'reschedule',
        '-w',
        taskId,
        '--input',
        JSON.stringify({ executeAt }),
      ]);
      expect(refused.code, executeAt).not.toBe(0);
      expect(refused.stderr).toMatch(/executeAt is not a valid time/);
    }
    expect(await updateEvents(taskId)).toEqual([]);

    // An operator may well type a local time: the task reports it in UTC like every other time.
    const due = new Date(Date.now() + 2000);
    const local = new Date(due.getTime() + 8 * 3600_000).toISOString().replace('Z', '+08:00');
    const stdout = await temporalOk([
      'workflow',
      'update',
      'execute',
      '--name',
      'reschedule',
      '-w',
      taskId,
      '--input',
      JSON.stringify({ executeAt: local }),
    ]);
    console.log(`CLI reschedule answered: ${stdout.trim().slice(0, 200)}`);
    expect((await h.get(taskId)).body).toMatchObject({ status: 'SCHEDULED', executeAt: due.toISOString() });

    const [call] = await h.receiver.waitForCalls(taskId, 1);
    const lagMs = call!.at - due.getTime();
    console.log(`CLI reschedule: lag behind the new time ${lagMs} ms`);
    expect(lagMs).toBeGreaterThanOrEqual(0);
    expect(call!.body.executeAt).toBe(due.toISOString());
    await waitForStatus(h, taskId, 'SUCCEEDED');
    expect(h.receiver.callsFor(taskId)).toHaveLength(1);
    expect(await updateEvents(taskId)).toEqual([
      'EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED',
      'EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED',
    ]);
  });
});
