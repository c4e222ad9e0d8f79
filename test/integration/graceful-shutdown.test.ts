/**
 * Rollouts lose and double nothing: the real entry points as processes, stopped with SIGTERM as an
 * orchestrator stops them. The worker stops polling, lets the callback in flight finish and records
 * its outcome (the task is closed on the server with no worker left, and was called once), and exits
 * within the grace. The API answers /readyz 503 first while still serving, then stops accepting,
 * finishes the request in flight, and exits.
 */
import { randomUUID } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { freePort, ServiceProcess } from '../helpers/processes.js';
import { CallbackReceiver } from '../helpers/receiver.js';
import { waitFor } from '../helpers/wait.js';

const GRACE_SECONDS = 8;
const NOT_READY_SECONDS = 2;

let receiver: CallbackReceiver;
let connection: Connection;
let client: Client;
let api: ServiceProcess;
let apiUrl: string;
const env = {
  TEMPORAL_ADDRESS: inject('temporalAddress'),
  TASK_QUEUE: `shutdown-${randomUUID()}`,
  LOG_LEVEL: 'info',
  SHUTDOWN_GRACE_SECONDS: String(GRACE_SECONDS),
  SHUTDOWN_NOT_READY_SECONDS: String(NOT_READY_SECONDS),
};

async function startApi(): Promise<ServiceProcess> {
  const port = await freePort();
  const child = new ServiceProcess('api', 'src/api/main.ts', { ...env, PORT: String(port) });
  apiUrl = `http://127.0.0.1:${port}`;
  await child.waitUntilHealthy(`${apiUrl}/readyz`);
  return child;
}

async function startWorker(
  extra: Record<string, string> = {},
): Promise<{ process: ServiceProcess; url: string }> {
  const [port, sdkPort] = await Promise.all([freePort(), freePort()]);
  const child = new ServiceProcess('worker', 'src/worker/main.ts', {
    ...env,
    ...extra,
    WORKER_PORT: String(port),
    WORKER_SDK_METRICS_PORT: String(sdkPort),
  });
  const url = `http://127.0.0.1:${port}`;
  await child.waitUntilHealthy(`${url}/readyz`);
  return { process: child, url };
}

beforeAll(async () => {
  receiver = await CallbackReceiver.start();
  connection = await Connection.connect({ address: env.TEMPORAL_ADDRESS });
  client = new Client({ connection });
  api = await startApi();
});

afterAll(async () => {
  await api?.stop();
  await receiver?.close();
  await connection?.close();
});

async function createTask(taskId: string, delaySeconds: number): Promise<void> {
  const response = await fetch(`${apiUrl}/api/v1/tasks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      taskType: 'shutdown.check',
      taskId,
      payload: {},
      delaySeconds,
      callbackUrl: receiver.url,
    }),
  });
  expect(response.status).toBe(201);
}

describe('worker on SIGTERM', () => {
  it('finishes the callback in flight, records it, and exits within the grace: delivered once', async () => {
    const { process: worker, url } = await startWorker();
    const taskId = `drain-${randomUUID()}`;
    const holdMs = 3000;
    receiver.script(taskId, [{ status: 200, delayMs: holdMs }]);
    await createTask(taskId, 0);
    const [call] = await receiver.waitForCalls(taskId, 1);

    const signalled = Date.now();
    worker.signal('SIGTERM');
    // Not ready from the signal on, while the attempt is still held by the receiver.
    await waitFor(async () => (await fetch(`${url}/readyz`)).status === 503, {
      timeoutMs: 2000,
      what: 'the worker /readyz to answer 503',
    });
    expect(receiver.callsFor(taskId)).toHaveLength(1);
    expect(await worker.exitCode()).toBe(0);
    const exitedMs = Date.now() - signalled;
    // It waited for the receiver's answer, and no longer than the grace.
    expect(Date.now() - call!.at).toBeGreaterThanOrEqual(holdMs);
    expect(exitedMs).toBeLessThan(GRACE_SECONDS * 1000);
    expect(worker.lines).toContainEqual(expect.objectContaining({ msg: 'callback delivered', taskId }));

    // With no worker left anywhere, the server already has the task closed: the outcome was recorded
    // before the process exited, so no other worker will send the callback again.
    const description = await client.workflow.getHandle(taskId).describe();
    expect(description.status.name).toBe('COMPLETED');
    expect(receiver.callsFor(taskId)).toHaveLength(1);
  });

  it('cuts off an attempt that outlasts the grace, records it, exits at the grace; the task retries later', async () => {
    const grace = 2;
    const { process: worker } = await startWorker({ SHUTDOWN_GRACE_SECONDS: String(grace) });
    const taskId = `cut-${randomUUID()}`;
    receiver.script(taskId, [{ status: 200, delayMs: 25_000 }, { status: 200 }]);
    await createTask(taskId, 0);
    await receiver.waitForCalls(taskId, 1);
    const signalled = Date.now();
    worker.signal('SIGTERM');
    expect(await worker.exitCode()).toBe(0);
    // At the grace: the attempt is cut off and recorded as a failed attempt; the worker does not wait
    // for the SDK's force time (grace + 5 s), which would leave the attempt to a workflow task timeout.
    expect(Date.now() - signalled).toBeGreaterThanOrEqual(grace * 1000);
    expect(Date.now() - signalled).toBeLessThan((grace + 3) * 1000);
    expect(worker.lines).toContainEqual(
      expect.objectContaining({
        msg: 'callback attempt failed, will retry',
        taskId,
        error: expect.objectContaining({ message: expect.stringMatching(/^callback cut off: .*grace/) }),
      }),
    );

    // At-least-once: the cut-off attempt is retried by the next worker (same Idempotency-Key).
    const next = await startWorker();
    try {
      const calls = await receiver.waitForCalls(taskId, 2, 40_000);
      expect(calls[1]!.headers['idempotency-key']).toBe(calls[0]!.headers['idempotency-key']);
    } finally {
      await next.process.stop();
    }
  });
});

/** A create sent on a raw socket up to half its body: a request in flight until the rest is written. */
async function startHeldCreate(taskId: string): Promise<{ finish(): Promise<string>; socket: Socket }> {
  const body = JSON.stringify({
    taskType: 'shutdown.check',
    taskId,
    payload: {},
    delaySeconds: 3600,
    callbackUrl: receiver.url,
  });
  const { port } = new URL(apiUrl);
  const socket = connect(Number(port), '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let answer = '';
  socket.on('data', (chunk: Buffer) => (answer += chunk.toString('utf8')));
  const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const half = Math.floor(body.length / 2);
  socket.write(
    `POST /api/v1/tasks HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, half)}`,
  );
  return {
    socket,
    async finish() {
      socket.write(body.slice(half));
      await waitFor(() => /\r\n\r\n/.test(answer) && answer, { what: 'the held request to be answered' });
      socket.end();
      await ended;
      return answer;
    },
  };
}

describe('API on SIGTERM', () => {
  it('turns not-ready first while serving, then stops accepting, finishes the request in flight, and exits', async () => {
    const taskId = `held-${randomUUID()}`;
    const held = await startHeldCreate(taskId);
    const lines = api.lines.length;

    const signalled = Date.now();
    api.signal('SIGTERM');
    const readyz = await waitFor(
      async () => {
        const response = await fetch(`${apiUrl}/readyz`);
        return response.status === 503 && ((await response.json()) as { reason: string });
      },
      { timeoutMs: 1500, what: '/readyz to answer 503' },
    );
    expect(readyz.reason).toBe('shutting down');
    // Still serving every other route during the not-ready period.
    const during = await fetch(`${apiUrl}/api/v1/task-types`);
    expect(during.status).toBe(200);
    expect(Date.now() - signalled).toBeLessThan(NOT_READY_SECONDS * 1000);

    // Then it stops accepting connections, while the held request is still in flight.
    await api.waitForLine(
      (line) => line.msg === 'closing: no new connections; finishing the requests in flight',
      'closing',
    );
    expect(Date.now() - signalled).toBeGreaterThanOrEqual(NOT_READY_SECONDS * 1000);
    await expect(fetch(`${apiUrl}/healthz`)).rejects.toThrow();
    expect(api.lines.slice(lines).some((line) => line.msg === 'API stopped')).toBe(false);

    // The request in flight completes: answered 201, and the task exists on the server.
    const answer = await held.finish();
    expect(answer).toMatch(/^HTTP\/1\.1 201 /);
    expect(await api.exitCode()).toBe(0);
    expect(Date.now() - signalled).toBeLessThan((NOT_READY_SECONDS + GRACE_SECONDS) * 1000);
    const description = await client.workflow.getHandle(taskId).describe();
    expect(description.status.name).toBe('RUNNING');
    await client.workflow.getHandle(taskId).terminate('test cleanup');
  });
});
