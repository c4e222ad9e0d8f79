/**
 * Bulk replay and bulk cancel as server-side batch jobs: replay of CANCELLED tasks, cancel by status,
 * the concurrency limit (429, the running jobs still complete) and progress while a job runs.
 *
 * On a dev server of its own, configured as the service configures Temporal but for a batch pace of
 * one task per second, so that a job of a few tasks runs long enough to be seen running; and other
 * test files' jobs do not count against this one's limit.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { BatchJob } from '../../src/contract/batches.js';
import type { Task } from '../../src/contract/tasks.js';
import { DEV_SERVER_DYNAMIC_CONFIG } from '../../src/temporal/dev-server.js';
import { startDevServer, type TestServer } from '../helpers/dev-server.js';
import { Harness, quietRuntime } from '../helpers/harness.js';
import type { ScriptedResponse } from '../helpers/receiver.js';
import {
  deadLetter,
  getBatch,
  listTasks,
  uniqueId,
  waitForBatch,
  waitForList,
  waitForStatus,
  waitUntilRetrying,
} from '../helpers/tasks.js';
import { waitFor } from '../helpers/wait.js';

const BATCH_RPS = 1;
/** Batch jobs Temporal runs at once per namespace, as the service configures it. */
const BATCH_LIMIT = Number(DEV_SERVER_DYNAMIC_CONFIG['frontend.MaxConcurrentBatchOperationPerNamespace']);

let server: TestServer;
let h: Harness;
beforeAll(async () => {
  quietRuntime();
  server = await startDevServer(inject('temporalCliPath'), { 'worker.batcherRPS': BATCH_RPS });
  h = await Harness.start({
    server: { address: server.address, workflowBundlePath: inject('workflowBundlePath') },
  });
});
afterAll(async () => {
  await h?.stop();
  await server?.stop();
});

/** A first answer that keeps the task RUNNING for 10 minutes (Retry-After, capped), then success. */
const WAITS_TEN_MINUTES: ScriptedResponse[] = [
  { status: 503, headers: { 'retry-after': '600' } },
  { status: 200 },
];

/** `count` tasks of `taskType` due in an hour; returns their ids once the list shows them all. */
async function scheduled(taskType: string, count: number): Promise<string[]> {
  const created = await Promise.all(
    Array.from({ length: count }, () =>
      h.create({ taskType, payload: {}, delaySeconds: 3600, callbackUrl: h.receiver.url }),
    ),
  );
  for (const c of created) expect(c.status).toBe(201);
  await waitForList(
    h,
    { taskType, status: 'SCHEDULED', pageSize: 100 },
    (list) => list.length === count,
    `${count} SCHEDULED ${taskType} tasks`,
  );
  return created.map((c) => c.task.taskId);
}

/** A task that called back once, got 503 with Retry-After and now waits 10 minutes: RUNNING. */
async function retrying(taskType: string): Promise<string> {
  const taskId = uniqueId('waiting');
  h.receiver.script(taskId, WAITS_TEN_MINUTES);
  const { status } = await h.create({
    taskType,
    taskId,
    payload: {},
    delaySeconds: 0,
    callbackUrl: h.receiver.url,
    maxRetries: 3,
  });
  expect(status).toBe(201);
  await waitUntilRetrying(h, taskId);
  return taskId;
}

/** The status of each task, one GET after the other; fails on any answer but 200. */
async function statuses(ids: readonly string[]): Promise<string[]> {
  const result: string[] = [];
  for (const taskId of ids) {
    const { status, body } = await h.get(taskId);
    if (status !== 200) throw new Error(`GET ${taskId} answered ${status}: ${JSON.stringify(body)}`);
    result.push(body.status);
  }
  return result;
}

/** Waits until the list shows `count` CANCELLED tasks of the type and none left open. */
async function allCancelled(taskType: string, count: number): Promise<void> {
  await waitForList(
    h,
    { taskType, status: 'CANCELLED', pageSize: 100 },
    (l) => l.length === count,
    `${count} CANCELLED`,
  );
  expect(await listTasks(h, { taskType, status: 'SCHEDULED' })).toEqual([]);
}

describe('bulk replay of CANCELLED tasks', () => {
  it('runs each cancelled task of the type again from its start; FAILED and other types stay as they are', async () => {
    const taskType = h.taskType('batch.replay-cancelled');
    // Cancelled while retrying: past due, so the new run calls back at once.
    const wasRunning = [await retrying(taskType), await retrying(taskType)];
    // Cancelled while waiting: the new run waits for the task's own time again.
    const [wasScheduled] = await scheduled(taskType, 1);
    const before = (await h.get(wasScheduled!)).body as Task;
    for (const taskId of [...wasRunning, wasScheduled!]) {
      expect((await h.post(`/api/v1/tasks/${taskId}/cancel`)).body.status).toBe('CANCELLED');
    }
    const failed = await deadLetter(h, taskType, 'batch-failed');
    const otherType = (await scheduled(h.taskType('batch.other'), 1))[0]!;
    expect((await h.post(`/api/v1/tasks/${otherType}/cancel`)).body.status).toBe('CANCELLED');
    await waitForList(
      h,
      { taskType, status: 'CANCELLED' },
      (list) => list.length === 3,
      '3 CANCELLED tasks listed',
    );

    const response = await h.post('/api/v1/tasks/replay', { taskType, status: 'CANCELLED' });
    expect(response.status).toBe(202);
    expect(response.body).toMatchObject({ operation: 'replay', matched: 3 });
    expect(await waitForBatch(h, response.body.jobId)).toMatchObject({ completed: 3, failed: 0 });

    for (const taskId of wasRunning) {
      const [first, second] = await h.receiver.waitForCalls(taskId, 2);
      expect(second!.headers['idempotency-key']).toBe(first!.headers['idempotency-key']);
      expect(second!.body.attempt).toBe(1);
      await waitForStatus(h, taskId, 'SUCCEEDED');
    }
    expect((await h.get(wasScheduled!)).body).toMatchObject({
      status: 'SCHEDULED',
      executeAt: before.executeAt,
      attempts: 0,
    });
    expect(h.receiver.callsFor(wasScheduled!)).toHaveLength(0);
    expect((await h.get(failed.taskId)).body.status).toBe('FAILED');
    expect(h.receiver.callsFor(failed.taskId)).toHaveLength(1);
    expect((await h.get(otherType)).body.status).toBe('CANCELLED');
  });
});

describe('bulk cancel by status', () => {
  it('status RUNNING cancels the retrying tasks of the type only; status SCHEDULED then the waiting ones', async () => {
    const taskType = h.taskType('batch.cancel-status');
    const running = [await retrying(taskType), await retrying(taskType)];
    const waiting = await scheduled(taskType, 2);
    await waitForList(h, { taskType, status: 'RUNNING' }, (list) => list.length === 2, '2 RUNNING listed');

    const first = await h.post('/api/v1/tasks/cancel', { taskType, status: 'RUNNING' });
    expect(first.status).toBe(202);
    expect(first.body).toMatchObject({ operation: 'cancel', matched: 2 });
    expect(await waitForBatch(h, first.body.jobId)).toMatchObject({ completed: 2, failed: 0 });
    expect(await statuses(running)).toEqual(['CANCELLED', 'CANCELLED']);
    expect(await statuses(waiting)).toEqual(['SCHEDULED', 'SCHEDULED']);

    const second = await h.post('/api/v1/tasks/cancel', { taskType, status: 'SCHEDULED' });
    expect(second.status).toBe(202);
    expect(second.body).toMatchObject({ operation: 'cancel', matched: 2 });
    expect(await waitForBatch(h, second.body.jobId)).toMatchObject({ completed: 2, failed: 0 });
    expect(await statuses(waiting)).toEqual(['CANCELLED', 'CANCELLED']);
    expect(running.flatMap((taskId) => h.receiver.callsFor(taskId))).toHaveLength(2);
  });
});

describe('batch jobs over the limit and in progress', () => {
  /** Tasks per job: at one per second, a job runs for several seconds. */
  const PER_JOB = 6;

  it(`a job beyond ${BATCH_LIMIT} running is refused at once with 429 and does nothing; the running ones complete`, async () => {
    // A few spare types: on a loaded machine a job may end before the next is posted, and the server
    // then rightly accepts one more. Jobs are posted until one is refused.
    const types = Array.from({ length: BATCH_LIMIT + 3 }, (_, i) => h.taskType(`batch.limit${i}`));
    const ids = await Promise.all(types.map((taskType) => scheduled(taskType, PER_JOB)));

    const jobs: string[] = [];
    let refusal: { index: number; tookMs: number; body: { error: { code: string } } } | undefined;
    for (const [index, taskType] of types.entries()) {
      const postedAt = Date.now();
      const response = await h.post('/api/v1/tasks/cancel', { taskType });
      if (response.status === 429) {
        refusal = { index, tookMs: Date.now() - postedAt, body: response.body };
        break;
      }
      expect(response.status, JSON.stringify(response.body)).toBe(202);
      jobs.push(response.body.jobId as string);
      // The server counts running jobs through visibility, which lags a start by a moment: 8 jobs
      // posted within 0.5 s were all accepted. Post the next only once this one is counted there.
      await waitFor(
        async () => {
          const { operationInfo } = await h.client.workflowService.listBatchOperations({
            namespace: 'default',
            pageSize: 100,
          });
          return (operationInfo ?? []).some((info) => info.jobId === response.body.jobId);
        },
        { timeoutMs: 10_000, intervalMs: 50, what: `batch job ${response.body.jobId} in visibility` },
      );
    }
    expect(refusal, `no job refused after ${jobs.length} accepted`).toBeDefined();
    const refusedType = types[refusal!.index]!;
    expect(jobs.length).toBeGreaterThanOrEqual(BATCH_LIMIT);
    // At once: not retried inside the API until a running job ends (it answered 202 then) or the
    // deadline runs out (503).
    expect(refusal!.tookMs).toBeLessThan(1000);
    expect(refusal!.body.error.code).toBe('RESOURCE_EXHAUSTED');
    // Else the refusal was not about jobs running at once.
    expect((await getBatch(h, jobs.at(-1)!)).state).toBe('RUNNING');

    for (const jobId of jobs) {
      expect(await waitForBatch(h, jobId, 60_000)).toMatchObject({ completed: PER_JOB, failed: 0 });
    }
    // From the list (visibility), as an operator checks a bulk job: not a status query per closed task.
    for (const taskType of types.slice(0, jobs.length)) await allCancelled(taskType, PER_JOB);
    // The refused request cancelled nothing; sent again now, it is accepted and does its work.
    expect(new Set(await statuses(ids[refusal!.index]!))).toEqual(new Set(['SCHEDULED']));
    const again = await h.post('/api/v1/tasks/cancel', { taskType: refusedType });
    expect(again.status).toBe(202);
    expect(await waitForBatch(h, again.body.jobId, 60_000)).toMatchObject({ completed: PER_JOB });
    await allCancelled(refusedType, PER_JOB);
  }, 180_000);

  it('GET /api/v1/batches/{jobId} shows a running job as RUNNING with its total while its tasks change, then COMPLETED', async () => {
    const count = 8;
    const taskType = h.taskType('batch.progress');
    const ids = await scheduled(taskType, count);
    const response = await h.post('/api/v1/tasks/cancel', { taskType });
    expect(response.status).toBe(202);
    const { jobId } = response.body as BatchJob;

    // Each look: the job as the API reports it, then how many of its tasks are cancelled by now.
    const looks: Array<{ job: BatchJob; cancelled: number }> = [];
    await waitFor(
      async () => {
        const job = await getBatch(h, jobId);
        const cancelled = (await listTasks(h, { taskType, status: 'CANCELLED', pageSize: 100 })).length;
        looks.push({ job, cancelled });
        return job.state !== 'RUNNING';
      },
      { timeoutMs: 60_000, intervalMs: 300, what: `batch ${jobId} to finish` },
    );
    console.log(
      `batch job of ${count} at ${BATCH_RPS}/s, (state, matched, completed, cancelled): ${JSON.stringify(
        looks.map(({ job, cancelled }) => [job.state, job.matched, job.completed, cancelled]),
      )}`,
    );
    const running = looks.filter(({ job }) => job.state === 'RUNNING');
    // Seen running while part of its tasks were done: the job was followed, not just found finished.
    expect(running.some(({ cancelled }) => cancelled > 0 && cancelled < count)).toBe(true);
    for (const { job } of running) {
      expect(job).toMatchObject({ jobId, operation: 'cancel', closedAt: null, failed: 0 });
      expect(job.startedAt).toEqual(expect.any(String));
      // The total is unknown (null) until Temporal has counted it, never a wrong 0.
      expect([null, count]).toContain(job.matched);
      expect(job.completed).toBeLessThanOrEqual(count);
    }
    expect(running.some(({ job }) => job.matched === count)).toBe(true);
    const done = looks.at(-1)!.job;
    expect(done).toMatchObject({ state: 'COMPLETED', matched: count, completed: count, failed: 0 });
    expect(Date.parse(done.closedAt!)).toBeGreaterThanOrEqual(Date.parse(done.startedAt!));
    await allCancelled(taskType, count);
    expect(await statuses(ids)).toEqual(ids.map(() => 'CANCELLED'));
  });
});
