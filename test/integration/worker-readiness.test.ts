/**
 * The worker's /readyz, through its HTTP contract: ready while every worker of the process runs; not
 * ready, naming the queue, once one of them (one task type's callbacks) stops; not ready, within the
 * deadline, when Temporal's answer never comes (the API's test against a silent server is in
 * durability.test.ts; a worker cannot even connect to one).
 */
import type { Server } from 'node:http';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorkerHttp } from '../../src/worker/http.js';
import { workerReadiness } from '../../src/worker/readiness.js';
import { Harness } from '../helpers/harness.js';
import { waitForStatus } from '../helpers/tasks.js';
import { waitFor } from '../helpers/wait.js';

const suffix = Math.random().toString(36).slice(2, 10);
const KEPT = `kept.${suffix}`;
const STOPPED = `stopped.${suffix}`;
const TIMEOUT_MS = 1000;

let h: Harness;
let http: Server;
let url: string;

async function readyz(): Promise<{ status: number; body: { status: string; reason?: string } }> {
  const response = await fetch(`${url}/readyz`);
  return { status: response.status, body: (await response.json()) as { status: string; reason?: string } };
}

beforeAll(async () => {
  h = await Harness.start({ policies: { strict: true, taskTypes: { [KEPT]: {}, [STOPPED]: {} } } });
  http = await startWorkerHttp({
    host: '127.0.0.1',
    port: 0,
    logger: pino({ level: 'silent' }),
    ready: workerReadiness({
      workers: () => h.workers,
      checkTemporal: () => h.client.workflowService.describeNamespace({ namespace: 'default' }),
      timeoutMs: TIMEOUT_MS,
    }),
    metrics: async () => '',
  });
  url = `http://127.0.0.1:${(http.address() as { port: number }).port}`;
});
afterAll(async () => {
  http?.close();
  await h?.stop();
});

describe('worker /readyz', () => {
  it('is ready while every worker runs, and names the one that stopped', async () => {
    expect(await readyz()).toEqual({ status: 200, body: { status: 'ready' } });

    // Every worker serving the type (its callback queue; a workflow queue of its own if it has one).
    const ofType = h.workers.filter((worker) => worker.options.taskQueue.endsWith(`.${STOPPED}`));
    expect(ofType.length).toBeGreaterThan(0);
    for (const worker of ofType) worker.shutdown();
    await waitFor(() => ofType.every((worker) => worker.getState() === 'STOPPED'), {
      what: `the workers of ${STOPPED} to stop`,
    });

    const answer = await readyz();
    expect(answer.status).toBe(503);
    expect(answer.body.status).toBe('unavailable');
    expect(answer.body.reason).toContain(STOPPED);
    expect(answer.body.reason).not.toContain(KEPT);
    // The other types are still served: a task of the kept type calls back and succeeds.
    const kept = await h.create({
      taskType: KEPT,
      payload: {},
      delaySeconds: 0,
      callbackUrl: h.receiver.url,
    });
    expect(kept.status).toBe(201);
    await h.receiver.waitForCalls(kept.task.taskId, 1);
    await waitForStatus(h, kept.task.taskId, 'SUCCEEDED');
  });
});

describe('worker /readyz when Temporal stops answering', () => {
  it('answers 503 within the deadline, not a hung probe', async () => {
    // The worker's connection was made before Temporal went silent: its call then just never returns.
    const server = await startWorkerHttp({
      host: '127.0.0.1',
      port: 0,
      logger: pino({ level: 'silent' }),
      ready: workerReadiness({
        workers: () => h.workers.filter((worker) => worker.getState() === 'RUNNING'),
        checkTemporal: () => new Promise(() => undefined),
        timeoutMs: TIMEOUT_MS,
      }),
      metrics: async () => '',
    });
    try {
      const started = Date.now();
      const response = await fetch(`http://127.0.0.1:${(server.address() as { port: number }).port}/readyz`);
      const took = Date.now() - started;
      expect(response.status).toBe(503);
      expect(((await response.json()) as { reason: string }).reason).toBe(
        `Temporal did not answer within ${TIMEOUT_MS} ms`,
      );
      expect(took).toBeGreaterThanOrEqual(TIMEOUT_MS);
      expect(took).toBeLessThan(TIMEOUT_MS + 1000);
    } finally {
      server.close();
    }
  });
});
