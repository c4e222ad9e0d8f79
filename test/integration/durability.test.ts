/**
 * Faults lose nothing: a worker stopped while tasks sleep fires them once when a worker is back;
 * an unreachable Temporal gives a fast 503, never a hang.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/api/app.js';
import { ApiMetrics } from '../../src/api/metrics.js';
import { TaskService } from '../../src/api/task-service.js';
import { loadConfig } from '../../src/config.js';
import { Policies } from '../../src/policies.js';
import { Connection } from '@temporalio/client';
import { Harness } from '../helpers/harness.js';
import { TEST_ENV } from '../helpers/test-env.js';
import { waitForStatus } from '../helpers/tasks.js';
import { waitFor } from '../helpers/wait.js';

let h: Harness;
beforeAll(async () => {
  h = await Harness.start();
});
afterAll(async () => {
  await h?.stop();
});

describe('worker restarts', () => {
  it('tasks that came due while no worker ran fire once when one is back', async () => {
    const taskType = h.taskType('points.grant');
    const created = [];
    for (let i = 0; i < 5; i++) {
      created.push(
        (await h.create({ taskType, payload: { i }, delaySeconds: 1 + i * 0.2, callbackUrl: h.receiver.url }))
          .task,
      );
    }
    const ids = created.map((task) => task.taskId);
    await h.stopWorkers();
    // Every due time passes while no worker runs: nothing may arrive.
    const lastDue = Math.max(...created.map((task) => Date.parse(task.executeAt)));
    await waitFor(() => Date.now() > lastDue + 1000, { what: 'the due times to pass' });
    expect(ids.flatMap((id) => h.receiver.callsFor(id))).toHaveLength(0);

    await h.startWorkers();
    for (const id of ids) await h.receiver.waitForCalls(id, 1);
    for (const id of ids) {
      await waitForStatus(h, id, 'SUCCEEDED');
    }
    // Once each, even after the new worker replayed their histories.
    expect(ids.map((id) => h.receiver.callsFor(id).length)).toEqual([1, 1, 1, 1, 1]);
  });
});

describe('Temporal unreachable', () => {
  it('answers 503 UNAVAILABLE fast on create and get, and /readyz says 503', async () => {
    const config = loadConfig({
      TEMPORAL_ADDRESS: '127.0.0.1:1',
      TEMPORAL_RPC_TIMEOUT_MS: '1000',
      LOG_LEVEL: 'silent',
      ...TEST_ENV,
    });
    const connection = Connection.lazy({ address: config.temporal.address });
    const tasks = new TaskService({ connection, config, policies: new Policies() });
    const app = await buildApp({
      config,
      tasks,
      metrics: new ApiMetrics({ readCounts: async () => ({ byStatus: {}, oldestOverdueSeconds: 0 }) }),
    });
    try {
      for (const request of [
        {
          method: 'POST' as const,
          url: '/api/v1/tasks',
          payload: { taskType: 'a.b', payload: {}, delaySeconds: 1, callbackUrl: 'http://127.0.0.1:9/' },
        },
        { method: 'GET' as const, url: '/api/v1/tasks/some-task' },
      ]) {
        const started = Date.now();
        const response = await app.inject(request);
        const took = Date.now() - started;
        console.log(
          `${request.method} ${request.url} with Temporal down: ${response.statusCode} in ${took} ms`,
        );
        expect(response.statusCode).toBe(503);
        expect(response.json()).toEqual({
          error: { code: 'UNAVAILABLE', message: 'Temporal is unreachable; retry later' },
        });
        expect(took).toBeLessThan(5000);
      }
      const ready = await app.inject({ method: 'GET', url: '/readyz' });
      expect(ready.statusCode).toBe(503);
      expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    } finally {
      await app.close();
      await connection.close().catch(() => undefined);
    }
  });
});
