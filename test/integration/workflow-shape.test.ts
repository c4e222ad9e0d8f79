/**
 * Workflow shape v2: a new task runs on its type's own queue and calls back with a local activity
 * (unless its type is rate-limited), writes nothing to visibility before it ends unless it retries,
 * and stays correct for attempts longer than the workflow task timeout; reads, cancel and reschedule
 * answer promptly while such an attempt holds the workflow task; tasks started on the shared queue
 * before v2 still run and are still listed.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness } from '../helpers/harness.js';
import { startAsV1 } from '../helpers/shape-v1.js';
import { EventType, historyCounts, historyEvents } from '../helpers/history.js';
import { listTasks, uniqueId, waitForStatus, waitUntilRetrying } from '../helpers/tasks.js';
import { waitFor } from '../helpers/wait.js';

const RATED = `rated.${randomUUID().slice(0, 8)}`;
/** Temporal's default workflow task timeout: a local activity longer than this needs heartbeats. */
const WORKFLOW_TASK_TIMEOUT_MS = 10_000;
/** What "promptly" means for an API answer while a callback attempt holds the workflow task. */
const PROMPT_MS = 2_000;

let h: Harness;
beforeAll(async () => {
  h = await Harness.start({ policies: { taskTypes: { [RATED]: { ratePerSecond: 50 } } } });
});
afterAll(async () => {
  await h?.stop();
});

function create(taskId: string, fields: Record<string, unknown> = {}) {
  return h.create({
    taskType: h.taskType('shape'),
    taskId,
    payload: {},
    delaySeconds: 0,
    callbackUrl: h.receiver.url,
    ...fields,
  });
}

async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const start = Date.now();
  const value = await fn();
  return { value, ms: Date.now() - start };
}

const untilClosed = (taskId: string) =>
  waitFor(async () => (await h.client.workflow.getHandle(taskId).describe()).status.name !== 'RUNNING', {
    timeoutMs: 60_000,
    what: `${taskId} to close`,
  });

describe('workflow shape v2', () => {
  it('runs a new task on its type queue with a local callback and no visibility write before it ends', async () => {
    const taskId = uniqueId('v2');
    expect((await create(taskId)).status).toBe(201);
    await waitForStatus(h, taskId, 'SUCCEEDED');
    const description = await h.client.workflow.getHandle(taskId).describe();
    expect(description.taskQueue).toBe(`${h.taskQueue}.callbacks._default`);
    const counts = historyCounts(await historyEvents(h.client, taskId));
    expect(counts.patchMarkers).toEqual([]);
    expect(counts).toMatchObject({ activityTasks: 0, localActivities: 1, timers: 0 });
    // The closing status and memo only (v1 also wrote RUNNING as the task fired); a v2 input asks
    // for no patch, whose marker would upsert TemporalChangeVersion.
    expect(counts.upserts).toBe(2);
    expect(h.receiver.callsFor(taskId)).toHaveLength(1);
  });

  it('writes RUNNING and the attempt to visibility once a retry follows, and lists it as RUNNING', async () => {
    const taskId = uniqueId('v2-retry');
    const taskType = h.taskType('shape-retry');
    h.receiver.script(taskId, [{ status: 503, headers: { 'retry-after': '30' } }, { status: 200 }]);
    await create(taskId, { taskType, maxRetries: 1 });
    const retrying = await waitUntilRetrying(h, taskId);
    expect(retrying).toMatchObject({ attempts: 1, lastError: { statusCode: 503 } });
    const rows = await waitFor(
      async () => {
        const listed = await listTasks(h, { status: 'RUNNING', taskType });
        return listed.length === 1 && listed;
      },
      { what: 'the retrying task listed as RUNNING' },
    );
    expect(rows[0]).toMatchObject({ taskId, attempts: 1, lastError: { statusCode: 503 } });
    await h.post(`/api/v1/tasks/${taskId}/cancel`);
  });

  it('keeps an attempt longer than the workflow task timeout one attempt; GET answers promptly during it', async () => {
    const taskId = uniqueId('v2-slow');
    const holdMs = WORKFLOW_TASK_TIMEOUT_MS + 2_000;
    h.receiver.script(taskId, [{ status: 200, delayMs: holdMs }]);
    await create(taskId, { timeoutMs: holdMs + 8_000, maxRetries: 2 });
    const [call] = await h.receiver.waitForCalls(taskId, 1);
    const reads: number[] = [];
    // Read it through the whole attempt, past the point where the workflow task would have timed out.
    while (Date.now() - call!.at < WORKFLOW_TASK_TIMEOUT_MS + 500) {
      const { value, ms } = await timed(() => h.get(taskId));
      expect(value.body).toMatchObject({ status: 'RUNNING', attempts: 1, nextAttemptAt: null });
      reads.push(ms);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(Math.max(...reads), `GET times during the attempt: ${reads.join(', ')} ms`).toBeLessThan(
      PROMPT_MS,
    );
    const done = await waitForStatus(h, taskId, 'SUCCEEDED', 30_000);
    expect(done.attempts).toBe(1);
    expect(h.receiver.callsFor(taskId)).toHaveLength(1);
    const events = await historyEvents(h.client, taskId);
    const counts = historyCounts(events);
    expect(counts).toMatchObject({ localActivities: 1, activityTasks: 0 });
    // The SDK kept the workflow task alive (heartbeats) instead of letting it time out.
    expect(events.filter((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT)).toEqual([]);
    expect(counts.workflowTasks).toBeGreaterThanOrEqual(3);
  }, 60_000);

  it('cancels during an in-flight local attempt: CANCELLED at once, its 200 dropped, no further attempt', async () => {
    const taskId = uniqueId('v2-cancel');
    h.receiver.script(taskId, [{ status: 200, delayMs: 5_000 }]);
    await create(taskId, { timeoutMs: 15_000, maxRetries: 3 });
    await h.receiver.waitForCalls(taskId, 1);
    const { value: response, ms } = await timed(() => h.post(`/api/v1/tasks/${taskId}/cancel`));
    expect(response.status).toBe(200);
    expect(response.body.status).toBe('CANCELLED');
    expect(ms).toBeLessThan(PROMPT_MS);
    await untilClosed(taskId);
    expect((await h.get(taskId)).body.status).toBe('CANCELLED');
    expect(h.receiver.callsFor(taskId)).toHaveLength(1);
  });

  it('keeps a rate-limited type on regular activities on its callback queue', async () => {
    const taskId = uniqueId('v2-rated');
    await create(taskId, { taskType: RATED });
    await waitForStatus(h, taskId, 'SUCCEEDED');
    const events = await historyEvents(h.client, taskId);
    const scheduled = events.find((e) => e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED);
    expect(scheduled?.activityTaskScheduledEventAttributes?.taskQueue?.name).toBe(
      `${h.taskQueue}.callbacks.${RATED}`,
    );
    expect(historyCounts(events)).toMatchObject({ activityTasks: 1, localActivities: 0 });
    expect((await h.client.workflow.getHandle(taskId).describe()).taskQueue).toBe(
      `${h.taskQueue}.callbacks.${RATED}`,
    );
  });

  it('still runs, lists and cancels tasks started on the shared queue before v2', async () => {
    const taskType = h.taskType('before-v2');
    // Exactly what the API started before v2: the shared queue, no `localCallback` in the input.
    const startV1 = (delaySeconds: number) => startAsV1(h, taskType, uniqueId('before-v2'), { delaySeconds });
    const [due, sleeping] = [await startV1(0), await startV1(3600)];
    const fresh = uniqueId('after-v2');
    await create(fresh, { taskType, delaySeconds: 3600 });
    await waitForStatus(h, due, 'SUCCEEDED');
    const events = await historyEvents(h.client, due);
    expect(historyCounts(events)).toMatchObject({ activityTasks: 1, localActivities: 0 });
    const listed = await waitFor(
      async () => {
        const rows = await listTasks(h, { taskType });
        return rows.length === 3 && rows;
      },
      { what: 'tasks of both queues listed' },
    );
    expect(listed.map((row) => row.taskId).sort()).toEqual([due, fresh, sleeping].sort());
    expect((await h.post(`/api/v1/tasks/${sleeping}/cancel`)).body.status).toBe('CANCELLED');
    await waitFor(async () => (await listTasks(h, { taskType, status: 'SCHEDULED' })).length === 1, {
      what: 'only the v2 task still SCHEDULED',
    });
    await h.post(`/api/v1/tasks/${fresh}/cancel`);
  });
});
