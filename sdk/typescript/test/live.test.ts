/**
 * Live scenarios against the real service (scripts/live-stack.sh: API, worker, Temporal dev server
 * on loopback). Skipped without DTS_URL, except under CI=true, where that is a failure.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callbackMiddleware } from '../src/express.js';
import {
  createNodeHandler,
  DelayedTaskError,
  DelayedTasksClient,
  PermanentError,
  type Callback,
  type Task,
  type TaskStatus,
} from '../src/index.js';

// The test reads the live stack's settings (this SDK itself takes everything as options).
const { DTS_URL, DTS_API_KEY, DTS_WEBHOOK_SECRET, CI } = process.env;

if (CI === 'true' && !DTS_URL) {
  it('DTS_URL is set under CI', () => {
    expect(DTS_URL, 'start scripts/live-stack.sh and export its env file').toBeTruthy();
  });
}

describe.runIf(Boolean(DTS_URL))('live service', () => {
  const client = new DelayedTasksClient({ baseUrl: DTS_URL ?? '', apiKey: DTS_API_KEY || undefined });
  const run = randomUUID().slice(0, 8);
  const received: Callback[] = [];
  let server: Server;
  let callbackUrl: string;

  beforeAll(async () => {
    server = createServer(
      createNodeHandler({
        ...(DTS_WEBHOOK_SECRET ? { secrets: [DTS_WEBHOOK_SECRET] } : { allowUnsigned: true }),
        handlers: {
          'sdk.ts': (callback) => {
            if (callback.payload.fail === true) throw new PermanentError('refused by the test');
            received.push(callback);
          },
        },
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    callbackUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callbacks`;
    if (!DTS_WEBHOOK_SECRET)
      console.log('DTS_WEBHOOK_SECRET is empty: the service does not sign yet; signature check skipped');
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  async function until(taskId: string, status: TaskStatus): Promise<Task> {
    const deadline = Date.now() + 45_000;
    for (;;) {
      const task = await client.status(taskId);
      if (task.status === status) return task;
      if (Date.now() > deadline) throw new Error(`${taskId} is ${task.status}, not ${status}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  it('create -> status -> cancel', async () => {
    const { task, created } = await client.create({
      taskType: 'sdk.ts',
      payload: { n: 1 },
      delaySeconds: 3600,
      callbackUrl,
    });
    expect(created).toBe(true);
    expect(task.taskId).toMatch(/^[0-9a-f-]{36}$/);
    expect((await client.status(task.taskId)).status).toBe('SCHEDULED');
    expect((await client.cancel(task.taskId)).status).toBe('CANCELLED');
    expect((await client.status(task.taskId)).status).toBe('CANCELLED');
  });

  it('create with a client id twice, then with another spec', async () => {
    const spec = {
      taskType: 'sdk.ts',
      taskId: `ts-${run}-twice`,
      payload: { n: 2 },
      executeAt: new Date(Date.now() + 3_600_000),
      callbackUrl,
    };
    expect((await client.create(spec)).created).toBe(true);
    expect((await client.create(spec)).created).toBe(false);
    await expect(client.create({ ...spec, payload: { n: 3 } })).rejects.toMatchObject({
      code: 'TASK_CONFLICT',
      status: 409,
    });
    await client.cancel(spec.taskId);
  });

  it('reschedule', async () => {
    const { task } = await client.create({
      taskType: 'sdk.ts',
      payload: {},
      delaySeconds: 3600,
      callbackUrl,
    });
    const at = new Date(Date.now() + 7_200_000);
    at.setMilliseconds(0);
    const moved = await client.reschedule(task.taskId, { executeAt: at });
    expect(moved.executeAt.toISOString()).toBe(at.toISOString());
    await client.cancel(task.taskId);
  });

  it('a permanently failing task is replayed with an edited payload and delivered, signature and payload checked', async () => {
    const taskId = `ts-${run}-replay`;
    await client.create({
      taskType: 'sdk.ts',
      taskId,
      payload: { fail: true, big: '12345678901234567890' },
      delaySeconds: 0,
      callbackUrl,
    });
    const failed = await until(taskId, 'FAILED');
    expect(failed.lastError?.statusCode).toBe(422);
    expect(received).toEqual([]);

    await client.replay(taskId, { payload: { fail: false, big: '12345678901234567890' } });
    await until(taskId, 'SUCCEEDED');
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({
      taskId,
      taskType: 'sdk.ts',
      payload: { fail: false, big: '12345678901234567890' },
    });
  });

  it('createTasks: created, generated id, per-item INVALID_ARGUMENT and TASK_CONFLICT; a repeat is not created', async () => {
    const item = { taskType: 'sdk.ts', payload: { n: 4 }, delaySeconds: 3600, callbackUrl };
    const first = await client.createTasks([
      { ...item, taskId: `ts-${run}-batch-a` },
      item,
      { ...item, taskId: `ts-${run}-batch-c`, taskType: 'Not A Type!' },
      { ...item, taskId: `ts-${run}-batch-a`, payload: { n: 5 } },
    ]);
    expect(first.map((r) => [r.index, r.created, r.error?.code, r.error?.status])).toEqual([
      [0, true, undefined, undefined],
      [1, true, undefined, undefined],
      [2, undefined, 'INVALID_ARGUMENT', 400],
      [3, undefined, 'TASK_CONFLICT', 409],
    ]);
    const generated = first[1]?.taskId ?? '';
    expect(generated).toMatch(/^[0-9a-f-]{36}$/);
    expect((await client.status(generated)).status).toBe('SCHEDULED');
    await expect(client.status(`ts-${run}-batch-c`)).rejects.toMatchObject({ code: 'TASK_NOT_FOUND' });

    const again = await client.createTasks([{ ...item, taskId: `ts-${run}-batch-a` }]);
    expect(again[0]).toMatchObject({
      created: false,
      task: { taskId: `ts-${run}-batch-a`, status: 'SCHEDULED' },
    });
    await client.cancel(`ts-${run}-batch-a`);
    await client.cancel(generated);
  });

  it('delivers to an Express receiver: handled, and the attempt history says so', async () => {
    const delivered: Callback[] = [];
    const app = express();
    app.post(
      '/hooks',
      callbackMiddleware({
        ...(DTS_WEBHOOK_SECRET ? { secrets: [DTS_WEBHOOK_SECRET] } : { allowUnsigned: true }),
        handlers: { 'sdk.ts': (callback) => void delivered.push(callback) },
      }),
    );
    const expressServer = createServer(app);
    await new Promise<void>((resolve) => expressServer.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(expressServer.address() as AddressInfo).port}/hooks`;
      const taskId = `ts-${run}-express`;
      await client.create({
        taskType: 'sdk.ts',
        taskId,
        payload: { via: 'express' },
        delaySeconds: 0,
        callbackUrl: url,
      });
      const done = await until(taskId, 'SUCCEEDED');
      expect(delivered.map((callback) => [callback.taskId, callback.payload])).toEqual([
        [taskId, { via: 'express' }],
      ]);
      expect(done.owner).toEqual(expect.any(String));
      expect(done.attemptHistory?.map((attempt) => [attempt.outcome, attempt.statusCode])).toEqual([
        ['SUCCEEDED', 200],
      ]);
      expect(done.attemptHistory?.[0]?.startedAt).toBeInstanceOf(Date);
    } finally {
      await new Promise((resolve) => expressServer.close(resolve));
    }
  });

  it('lists by id prefix and due range (listAll as an async iterator)', async () => {
    const base = Date.now() + 3_600_000;
    const at = (minutes: number) => new Date(base + minutes * 60_000);
    const prefix = `ts-${run}-due-`;
    for (const minutes of [0, 10, 20]) {
      await client.create({
        taskType: 'sdk.ts',
        taskId: `${prefix}${minutes}`,
        payload: {},
        executeAt: at(minutes),
        callbackUrl,
      });
    }
    // The window [5, 20) minutes holds only the 10-minute task; dueBefore given as a string with an offset.
    const filters = {
      idPrefix: prefix,
      dueAfter: at(5),
      dueBefore: at(20).toISOString().replace('Z', '+00:00'),
    };
    const deadline = Date.now() + 20_000;
    let seen: string[] = [];
    let everything: string[] = [];
    // Visibility (what list reads) catches up shortly after the creates.
    while (Date.now() < deadline) {
      seen = [];
      for await (const task of client.listAll(filters)) seen.push(task.taskId);
      everything = (await client.list({ idPrefix: prefix, pageSize: 10 })).tasks.map((task) => task.taskId);
      if (everything.length === 3 && seen.length > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(everything.sort()).toEqual([`${prefix}0`, `${prefix}10`, `${prefix}20`]);
    expect(seen).toEqual([`${prefix}10`]);
    for (const minutes of [0, 10, 20]) await client.cancel(`${prefix}${minutes}`);
  });

  it('lists tasks page by page', async () => {
    const seen: string[] = [];
    for await (const task of client.listAll({ taskType: 'sdk.ts', pageSize: 1 })) {
      seen.push(task.taskId);
      if (seen.length === 3) break;
    }
    expect(seen.length).toBe(3);
  });
  it('a schedule: create, get, list, pause with a note, resume, trigger (the callback names it), delete', async () => {
    const scheduleId = `sdk-ts-${run}`;
    const input = { scheduleId, every: '1h', task: { taskType: 'sdk.ts', payload: { n: 7 }, callbackUrl } };
    const first = await client.createSchedule(input);
    expect(first.created).toBe(true);
    expect((await client.createSchedule(input)).created).toBe(false);
    const schedule = await client.getSchedule(scheduleId);
    expect(schedule).toMatchObject({ every: '1h', overlap: 'skip', catchupWindow: '1h', paused: false });
    expect(schedule.nextRunTimes.length).toBe(10);
    expect(schedule.nextRunTimes[0]).toBeInstanceOf(Date);
    const page = await client.listSchedules({ taskType: 'sdk.ts', paused: false });
    expect(page.schedules.map((s) => s.scheduleId)).toContain(scheduleId);

    const paused = await client.pauseSchedule(scheduleId, 'paused by the SDK test');
    expect(paused).toMatchObject({ paused: true, note: 'paused by the SDK test' });
    expect((await client.resumeSchedule(scheduleId, 'resumed by the SDK test')).paused).toBe(false);

    await client.triggerSchedule(scheduleId);
    const deadline = Date.now() + 45_000;
    let callback: Callback | undefined;
    while (!(callback = received.find((c) => c.schedule?.scheduleId === scheduleId))) {
      if (Date.now() > deadline) throw new Error('the triggered occurrence did not call back');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(callback.taskId).toBe(
      `${scheduleId}-${callback.schedule?.scheduledAt.toISOString().slice(0, 19)}Z`,
    );
    expect(callback.payload).toEqual({ n: 7 });

    await client.deleteSchedule(scheduleId);
    const gone = await client.getSchedule(scheduleId).catch((err: unknown) => err);
    expect(gone).toBeInstanceOf(DelayedTaskError);
    expect(gone).toMatchObject({ code: 'SCHEDULE_NOT_FOUND', status: 404 });
  });
});
