/**
 * Tasks survive a new workflow version: tasks started on the frozen workflow of shape v1
 * (test/fixtures/workflows/v1, as main had it before v2) by that version's workers, one sleeping and
 * one waiting to retry, complete correctly once those workers are replaced by today's. The v1 run's
 * history replays on the new code because the v2 changes sit behind `patched()`: without the guard,
 * the retrying task's replay fails with a nondeterminism error and it never completes (checked by
 * hand once by making `patched()` answer true).
 */
import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createActivities } from '../../src/activities/callback.js';
import { WORKFLOW_PATCHES } from '../../src/shared/constants.js';
import { bundleTaskWorkflows, callbackDepsFromConfig, runWorkers } from '../../src/worker/workers.js';
import { Harness } from '../helpers/harness.js';
import { startAsV1 } from '../helpers/shape-v1.js';
import { historyCounts, historyEvents } from '../helpers/history.js';
import { uniqueId, waitForStatus, waitUntilRetrying } from '../helpers/tasks.js';
import { typeQueue } from '../../src/shared/task-queues.js';

/** How long the sleeping task sleeps and the retrying one waits (Retry-After): the upgrade comes first. */
const SLEEP_S = 14;
const RETRY_AFTER_S = 12;

let h: Harness;
let connection: NativeConnection;
beforeAll(async () => {
  h = await Harness.start();
  await h.stopWorkers();
  connection = await NativeConnection.connect({ address: inject('temporalAddress') });
});
/** Stops the v1 workers if a test ends before it did. */
let stopV1: (() => Promise<void>) | undefined;
afterAll(async () => {
  await stopV1?.();
  await h?.stop();
  await connection?.close();
});

/** The workers of the version before v2: its workflow on the shared queue, callbacks on the type queue. */
async function startV1Workers(taskType: string): Promise<{ stop: () => Promise<void> }> {
  const policy = h.policies.forType(taskType)!;
  const namespace = h.config.temporal.namespace;
  const workflowBundle = await bundleTaskWorkflows(
    fileURLToPath(new URL('../fixtures/workflows/v1/delayed-task.ts', import.meta.url)),
  );
  const workers = await Promise.all([
    Worker.create({
      connection,
      namespace,
      taskQueue: h.taskQueue,
      workflowBundle,
      dataConverter: h.dataConverter,
      sinks: { taskMetrics: { finished: { fn: () => undefined, callDuringReplay: false } } },
    }),
    Worker.create({
      connection,
      namespace,
      taskQueue: typeQueue(h.taskQueue, policy.name),
      dataConverter: h.dataConverter,
      activities: createActivities(callbackDepsFromConfig(h.config)),
    }),
  ]);
  const running = runWorkers(workers);
  return {
    stop: async () => {
      for (const worker of workers) worker.shutdown();
      await running;
    },
  };
}

describe('upgrading the worker from workflow shape v1 to v2', () => {
  it('completes a task that slept and one that was retrying through the upgrade, on the new code', async () => {
    const taskType = h.taskType('upgrade');
    const v1 = await startV1Workers(taskType);
    const sleeping = uniqueId('upgrade-sleeping');
    const retrying = uniqueId('upgrade-retrying');
    h.receiver.script(retrying, [
      { status: 503, headers: { 'retry-after': String(RETRY_AFTER_S) } },
      { status: 200 },
    ]);
    await startAsV1(h, taskType, sleeping, { delaySeconds: SLEEP_S });
    await startAsV1(h, taskType, retrying, { delaySeconds: 0, maxRetries: 3 });
    await waitUntilRetrying(h, retrying);
    expect((await h.get(sleeping)).body.status).toBe('SCHEDULED');

    await v1.stop();
    await h.startWorkers();
    const upgradedAt = Date.now();

    for (const taskId of [sleeping, retrying]) {
      const done = await waitForStatus(h, taskId, 'SUCCEEDED', 60_000);
      expect(done.taskId).toBe(taskId);
    }
    // Both callbacks that count came from the new workers, after the upgrade.
    const sleepingCalls = h.receiver.callsFor(sleeping);
    expect(sleepingCalls).toHaveLength(1);
    expect(sleepingCalls[0]!.at).toBeGreaterThan(upgradedAt);
    const retryingCalls = h.receiver.callsFor(retrying);
    expect(retryingCalls.map((call) => call.headers['x-task-attempt'])).toEqual(['1', '2']);
    expect(retryingCalls[0]!.at).toBeLessThan(upgradedAt);
    expect(retryingCalls[1]!.at).toBeGreaterThan(upgradedAt);
    expect(retryingCalls[1]!.headers['idempotency-key']).toBe(retryingCalls[0]!.headers['idempotency-key']);

    // The sleeping task met the patch live: marker recorded, v2 path (no RUNNING write: its upserts
    // are the marker's TemporalChangeVersion and the closing status and memo), and the regular
    // activity its v1 input asks for.
    const sleepingCounts = historyCounts(await historyEvents(h.client, sleeping));
    expect(sleepingCounts.patchMarkers).toEqual([WORKFLOW_PATCHES.shapeV2]);
    expect(sleepingCounts).toMatchObject({ activityTasks: 1, localActivities: 0, upserts: 3 });
    // The retrying task had fired on v1 (RUNNING written, no marker): it replays and ends on the
    // v1 path, which is what keeps its history deterministic.
    const retryingCounts = historyCounts(await historyEvents(h.client, retrying));
    expect(retryingCounts.patchMarkers).toEqual([]);
    expect(retryingCounts).toMatchObject({ activityTasks: 2, localActivities: 0 });
  }, 120_000);
});
