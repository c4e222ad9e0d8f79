/**
 * The real entry points as separate processes: API and worker against their own dev server. After a
 * short load, /metrics of both shows every metric with plausible values; log lines about a task
 * carry its ids; /readyz turns 503 when Temporal stops; SIGTERM shuts both down cleanly.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { SDK_METRIC_NAMES } from '../../src/worker/metrics.js';
import { startDevServer, type TestServer } from '../helpers/dev-server.js';
import { freePort, ServiceProcess } from '../helpers/processes.js';
import { CallbackReceiver } from '../helpers/receiver.js';
import { waitFor } from '../helpers/wait.js';

let server: TestServer | undefined;
let api: ServiceProcess;
let worker: ServiceProcess;
let receiver: CallbackReceiver;
let apiUrl: string;
let workerUrl: string;
let env: Record<string, string>;

beforeAll(async () => {
  // A server of its own, so that this file can stop it.
  server = await startDevServer(inject('temporalCliPath'));
  receiver = await CallbackReceiver.start();
  const apiPort = await freePort();
  env = {
    TEMPORAL_ADDRESS: server.address,
    TASK_QUEUE: `proc-${randomUUID()}`,
    LOG_LEVEL: 'info',
    TEMPORAL_RPC_TIMEOUT_MS: '1500',
  };
  api = new ServiceProcess('api', 'src/api/main.ts', { ...env, PORT: String(apiPort) });
  apiUrl = `http://127.0.0.1:${apiPort}`;
  await startWorker();
  await api.waitUntilHealthy(`${apiUrl}/readyz`);
});

async function startWorker(): Promise<void> {
  const [workerPort, sdkPort] = await Promise.all([freePort(), freePort()]);
  worker = new ServiceProcess('worker', 'src/worker/main.ts', {
    ...env,
    WORKER_PORT: String(workerPort),
    WORKER_SDK_METRICS_PORT: String(sdkPort),
  });
  workerUrl = `http://127.0.0.1:${workerPort}`;
  await worker.waitUntilHealthy(`${workerUrl}/readyz`);
}

afterAll(async () => {
  await api?.stop();
  await worker?.stop();
  await receiver?.close();
  await server?.stop().catch(() => undefined);
});

async function createTask(body: Record<string, unknown>): Promise<{ taskId: string }> {
  const response = await fetch(`${apiUrl}/api/v1/tasks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(201);
  return (await response.json()) as { taskId: string };
}

/** Value of one sample line, e.g. `delayed_tasks_created_total{task_type="x"}`. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const match = /^([a-zA-Z_:][\w:]*)(\{[^}]*\})?\s+(\S+)/.exec(line);
    if (!match || match[1] !== name) continue;
    const labelText = match[2] ?? '';
    if (Object.entries(labels).every(([k, v]) => labelText.includes(`${k}="${v}"`))) return Number(match[3]);
  }
  return undefined;
}

describe('API and worker processes', () => {
  const taskType = 'notify.push';
  const traceId = '0af7651916cd43dd8448eb211c80319c';
  const ids: string[] = [];

  it('deliver a short load and expose every metric with plausible values', async () => {
    const failing = `fail-${randomUUID()}`;
    receiver.script(failing, [{ status: 500 }, { status: 404 }]);
    for (let i = 0; i < 8; i++)
      ids.push(
        (
          await createTask({
            taskType,
            payload: { i },
            delaySeconds: 0.5,
            callbackUrl: receiver.url,
            traceId,
          })
        ).taskId,
      );
    ids.push(
      (
        await createTask({
          taskType,
          taskId: failing,
          payload: {},
          delaySeconds: 0,
          callbackUrl: receiver.url,
          traceId,
        })
      ).taskId,
    );
    await createTask({ taskType: 'later.thing', payload: {}, delaySeconds: 3600, callbackUrl: receiver.url });
    for (const id of ids.slice(0, 8)) await receiver.waitForCalls(id, 1);
    await receiver.waitForCalls(failing, 2);

    const workerMetrics = await waitFor(async () => {
      const text = await (await fetch(`${workerUrl}/metrics`)).text();
      return (
        sample(text, 'delayed_tasks_finished_total', { task_type: taskType, status: 'FAILED' }) === 1 && text
      );
    });
    expect(
      sample(workerMetrics, 'delayed_tasks_finished_total', { task_type: taskType, status: 'SUCCEEDED' }),
    ).toBe(8);
    expect(
      sample(workerMetrics, 'delayed_tasks_callback_attempts_total', {
        task_type: taskType,
        outcome: 'success',
      }),
    ).toBe(8);
    expect(
      sample(workerMetrics, 'delayed_tasks_callback_attempts_total', {
        task_type: taskType,
        outcome: 'retryable',
      }),
    ).toBe(1);
    expect(
      sample(workerMetrics, 'delayed_tasks_callback_attempts_total', {
        task_type: taskType,
        outcome: 'permanent',
      }),
    ).toBe(1);
    expect(
      sample(workerMetrics, 'delayed_tasks_callback_duration_seconds_count', { task_type: taskType }),
    ).toBe(10);
    expect(sample(workerMetrics, 'delayed_tasks_fire_lag_seconds_count', { task_type: taskType })).toBe(9);
    const lagSum = sample(workerMetrics, 'delayed_tasks_fire_lag_seconds_sum', { task_type: taskType })!;
    expect(lagSum / 9).toBeGreaterThanOrEqual(0);
    expect(lagSum / 9).toBeLessThan(10);
    // The Temporal SDK's own worker metrics, merged in.
    // A failure counter has no series until the first failure.
    // The activity latency has series only once a regular activity ran: since shape v2 the callbacks
    // of this load run as local activities (a rate-limited type or a pre-v2 task would show it).
    const seen = SDK_METRIC_NAMES.filter(
      (n) => !n.endsWith('_failure_total') && n !== 'temporal_activity_schedule_to_start_latency_seconds',
    );
    for (const name of seen) {
      const series = name.endsWith('_seconds') ? `${name}_count` : name;
      expect(sample(workerMetrics, series), name).toBeGreaterThanOrEqual(0);
    }
    expect(sample(workerMetrics, 'process_resident_memory_bytes')).toBeGreaterThan(10_000_000);
    expect(workerMetrics).not.toContain(ids[0]);

    // The gauges come from visibility, which records a closed run a moment after it closes (longer on
    // a loaded machine, when a delivered task still counts as SCHEDULED and overdue): wait until they
    // settle on what the load left (one dead letter, one task an hour ahead, nothing overdue).
    const apiMetrics = await waitFor(
      async () => {
        const text = await (await fetch(`${apiUrl}/metrics`)).text();
        return (
          sample(text, 'delayed_tasks_current', { status: 'FAILED' }) === 1 &&
          sample(text, 'delayed_tasks_current', { status: 'SCHEDULED' }) === 1 &&
          sample(text, 'delayed_tasks_overdue') === 0 &&
          text
        );
      },
      { timeoutMs: 40_000, intervalMs: 1000, what: 'the API gauges to settle' },
    );
    expect(sample(apiMetrics, 'delayed_tasks_created_total', { task_type: taskType })).toBe(9);
    expect(sample(apiMetrics, 'delayed_tasks_current', { status: 'SCHEDULED' })).toBe(1);
    expect(sample(apiMetrics, 'delayed_tasks_current', { status: 'RUNNING' })).toBe(0);
    expect(sample(apiMetrics, 'delayed_tasks_oldest_overdue_seconds')).toBe(0);
    expect(sample(apiMetrics, 'delayed_tasks_overdue')).toBe(0);
    expect(
      sample(apiMetrics, 'http_request_duration_seconds_count', {
        method: 'POST',
        route: '/api/v1/tasks',
        status_code: '201',
      }),
    ).toBe(10);
  });

  it('log every line about a task with its taskId, taskType and traceId', async () => {
    const [workerFrom, apiFrom] = [worker.lines.length, api.lines.length];
    const logType = 'logs.check';
    const logTrace = '5bf92f3577b34da6a3ce929d0e0e4737';
    const taskId = `logs-${randomUUID()}`;
    receiver.script(taskId, [{ status: 500 }, { status: 200 }]);
    await createTask({
      taskType: logType,
      taskId,
      payload: {},
      delaySeconds: 0,
      callbackUrl: receiver.url,
      traceId: logTrace,
    });
    await waitFor(() =>
      worker.lines.slice(workerFrom).some((line) => line.msg === 'task finished' && line.taskId === taskId),
    );
    // Lines about tasks, chosen by where they come from, not by the id checked below: everything the
    // workflow and the callback activity log, and the API's task lines.
    const taskLines = [
      ...worker.lines
        .slice(workerFrom)
        .filter((line) => line.sdkComponent === 'workflow' || line.sdkComponent === 'activity'),
      ...api.lines.slice(apiFrom).filter((line) => typeof line.msg === 'string' && /^task /.test(line.msg)),
    ];
    expect(taskLines.map((line) => line.msg)).toEqual(
      expect.arrayContaining([
        'task created',
        'task due, calling back',
        'callback attempt failed',
        'callback attempt failed, will retry',
        'callback delivered',
        'task finished',
      ]),
    );
    for (const line of taskLines) {
      expect(line, String(line.msg)).toMatchObject({
        taskId: expect.any(String),
        taskType: expect.any(String),
      });
      expect(line, String(line.msg)).toHaveProperty('traceId');
    }
    const ours = taskLines.filter((line) => line.taskId === taskId);
    expect(ours.length).toBeGreaterThanOrEqual(6);
    for (const line of ours) expect(line).toMatchObject({ taskType: logType, traceId: logTrace });
  });

  it('SIGTERM lets an in-flight callback finish and records it, then the worker exits 0', async () => {
    const taskId = `drain-${randomUUID()}`;
    receiver.script(taskId, [{ status: 200, delayMs: 2000 }]);
    await createTask({ taskType, taskId, payload: {}, delaySeconds: 0, callbackUrl: receiver.url });
    await receiver.waitForCalls(taskId, 1);
    const stopping = Date.now();
    expect(await worker.stop()).toBe(0);
    console.log(`worker drained and exited in ${Date.now() - stopping} ms`);
    expect(worker.lines).toContainEqual(expect.objectContaining({ msg: 'callback delivered', taskId }));

    await startWorker();
    const done = await waitFor(async () => {
      const task = (await (await fetch(`${apiUrl}/api/v1/tasks/${taskId}`)).json()) as {
        status: string;
        attempts: number;
      };
      return task.status === 'SUCCEEDED' && task;
    });
    expect(done.attempts).toBe(1);
    expect(receiver.callsFor(taskId)).toHaveLength(1);
  });

  it('/readyz turns 503 when Temporal stops; SIGTERM stops both processes cleanly', async () => {
    await server!.stop();
    server = undefined;
    await waitFor(async () => (await fetch(`${apiUrl}/readyz`)).status === 503, {
      timeoutMs: 15_000,
      intervalMs: 250,
    });
    await waitFor(async () => (await fetch(`${workerUrl}/readyz`)).status === 503, {
      timeoutMs: 15_000,
      intervalMs: 250,
    });
    expect((await fetch(`${apiUrl}/healthz`)).status).toBe(200);
    const create = await fetch(`${apiUrl}/api/v1/tasks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ taskType, payload: {}, delaySeconds: 1, callbackUrl: receiver.url }),
    });
    expect(create.status).toBe(503);
    expect(await api.stop()).toBe(0);
    expect(await worker.stop()).toBe(0);
  });
});
