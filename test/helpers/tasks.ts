/**
 * Small waits on what a user of the API sees: a task's status through GET, a list through GET.
 */
import { randomUUID } from 'node:crypto';
import type { BatchJob } from '../../src/contract/batches.js';
import type { Task, TaskSummary } from '../../src/contract/tasks.js';
import type { Harness } from './harness.js';
import type { ScriptedResponse } from './receiver.js';
import { waitFor } from './wait.js';

/** A task id unique to this run, readable in the Web UI. */
export function uniqueId(prefix: string): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`;
}

/** Polls GET /api/v1/tasks/{id} until the task has `status`. */
export async function waitForStatus(
  h: Harness,
  taskId: string,
  status: Task['status'],
  timeoutMs = 30_000,
): Promise<Task> {
  return waitFor(
    async () => {
      const { body } = await h.get(taskId);
      return body.status === status && body;
    },
    { timeoutMs, intervalMs: 100, what: `task ${taskId} to be ${status}` },
  );
}

/** Polls GET /api/v1/tasks/{id} until the task is RUNNING and waiting for its next attempt. */
export async function waitUntilRetrying(h: Harness, taskId: string, timeoutMs = 30_000): Promise<Task> {
  return waitFor(
    async () => {
      const { body } = await h.get(taskId);
      return body.status === 'RUNNING' && body.nextAttemptAt !== null && body;
    },
    { timeoutMs, intervalMs: 100, what: `task ${taskId} to wait for its next attempt` },
  );
}

/** GET /api/v1/tasks with a query; fails on anything but 200. */
export async function listTasks(h: Harness, query: Record<string, string | number>): Promise<TaskSummary[]> {
  const search = new URLSearchParams(
    Object.entries(query).map(([key, value]): [string, string] => [key, String(value)]),
  );
  const response = await h.app.inject({ method: 'GET', url: `/api/v1/tasks?${search.toString()}` });
  if (response.statusCode !== 200)
    throw new Error(
      `GET /api/v1/tasks?${search.toString()} answered ${response.statusCode}: ${response.body}`,
    );
  return (response.json() as { tasks: TaskSummary[] }).tasks;
}

/** Polls the list (visibility is eventually consistent) until `accept` holds for it. */
export async function waitForList(
  h: Harness,
  query: Record<string, string | number>,
  accept: (tasks: TaskSummary[]) => boolean,
  what: string,
  timeoutMs = 30_000,
): Promise<TaskSummary[]> {
  return waitFor(
    async () => {
      const tasks = await listTasks(h, query);
      return accept(tasks) && tasks;
    },
    { timeoutMs, intervalMs: 250, what },
  );
}

/**
 * Creates a task due now, without retries, whose callback answers as scripted (a 500 first by
 * default); returns it once it is FAILED: a dead letter.
 */
export async function deadLetter(
  h: Harness,
  taskType: string,
  prefix: string,
  fields: Record<string, unknown> = {},
  script: ScriptedResponse[] = [{ status: 500 }, { status: 200 }],
): Promise<Task> {
  const taskId = uniqueId(prefix);
  h.receiver.script(taskId, script);
  const created = await h.create({
    taskType,
    taskId,
    payload: { prefix },
    delaySeconds: 0,
    callbackUrl: h.receiver.url,
    maxRetries: 0,
    ...fields,
  });
  if (created.status !== 201)
    throw new Error(`create answered ${created.status}: ${JSON.stringify(created.raw)}`);
  return waitForStatus(h, taskId, 'FAILED');
}

/** GET /api/v1/batches/{jobId}; fails on anything but 200. */
export async function getBatch(h: Harness, jobId: string): Promise<BatchJob> {
  const response = await h.app.inject({ method: 'GET', url: `/api/v1/batches/${jobId}` });
  if (response.statusCode !== 200)
    throw new Error(`GET /api/v1/batches/${jobId} answered ${response.statusCode}: ${response.body}`);
  return response.json() as BatchJob;
}

/** Polls GET /api/v1/batches/{jobId} until the job is COMPLETED; a FAILED job fails the wait at once. */
export async function waitForBatch(h: Harness, jobId: string, timeoutMs = 30_000): Promise<BatchJob> {
  const job = await waitFor(
    async () => {
      const current = await getBatch(h, jobId);
      return current.state !== 'RUNNING' && current;
    },
    { timeoutMs, intervalMs: 250, what: `batch ${jobId} to complete` },
  );
  if (job.state !== 'COMPLETED') throw new Error(`batch ${jobId} ended ${JSON.stringify(job)}`);
  return job;
}
