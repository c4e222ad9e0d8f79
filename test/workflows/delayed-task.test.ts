/**
 * The task workflow on its own, fast: a Worker with mocked activities (no HTTP, no API), against the
 * run's dev server, in the style of temporalio/samples-typescript's workflow tests. Each case is a
 * task input and what its mocked callback answers; the outcome is what the workflow returns or how
 * it fails, and what its status query says. The full paths through the API and a real receiver are
 * in test/integration/.
 */
import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/activity';
import { Client, Connection, WorkflowFailedError } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { CallbackActivities, CallbackInput } from '../../src/activities/callback.js';
import { TASK_WORKFLOW_TYPE } from '../../src/shared/constants.js';
import {
  CallbackFailureType,
  TASK_FAILED_TYPE,
  type TaskSpec,
  type TaskState,
} from '../../src/shared/task.js';
import { createDataConverter } from '../../src/temporal/data-converter.js';
import { cancelSignal, statusQuery, type delayedTask } from '../../src/workflows/delayed-task.js';
import { quietRuntime } from '../helpers/harness.js';
import { waitFor } from '../helpers/wait.js';

const taskQueue = `workflow-test-${randomUUID()}`;
const dataConverter = createDataConverter(undefined);
/** What the mocked callback answers, per task id: one entry per attempt, the last one repeats. */
const scripts = new Map<string, ('ok' | 'retry' | 'permanent')[]>();
const calls = new Map<string, CallbackInput[]>();

const mockActivities: CallbackActivities = {
  async deliverCallback(input) {
    const seen = calls.get(input.taskId) ?? [];
    seen.push(input);
    calls.set(input.taskId, seen);
    const script = scripts.get(input.taskId) ?? ['ok'];
    const answer = script[Math.min(seen.length, script.length) - 1];
    if (answer === 'ok') return { statusCode: 204 };
    throw ApplicationFailure.create({
      type: answer === 'retry' ? CallbackFailureType.Retryable : CallbackFailureType.Permanent,
      message: `callback answered HTTP ${answer === 'retry' ? 503 : 400}`,
      details: [{ statusCode: answer === 'retry' ? 503 : 400 }],
      nonRetryable: true,
    });
  },
};

let client: Client;
let connection: Connection;
let nativeConnection: NativeConnection;
let worker: Worker;
let running: Promise<void>;

beforeAll(async () => {
  quietRuntime();
  const address = inject('temporalAddress');
  nativeConnection = await NativeConnection.connect({ address });
  worker = await Worker.create({
    connection: nativeConnection,
    taskQueue,
    workflowBundle: { codePath: inject('workflowBundlePath') },
    activities: mockActivities,
    dataConverter,
  });
  running = worker.run();
  connection = await Connection.connect({ address });
  client = new Client({ connection, dataConverter });
});

afterAll(async () => {
  worker?.shutdown();
  await running;
  await connection?.close();
  await nativeConnection?.close();
});

function spec(overrides: Partial<TaskSpec> = {}): TaskSpec {
  const now = Date.now();
  return {
    taskId: `wf-${randomUUID()}`,
    owner: 'default',
    taskType: 'test.workflow',
    payload: { n: 1 },
    payloadVersion: 1,
    executeAt: new Date(now).toISOString(),
    callbackUrl: 'https://receiver.example/hook',
    maxRetries: 2,
    timeoutMs: 5_000,
    traceId: null,
    priority: 3,
    createdAt: new Date(now).toISOString(),
    callbackTaskQueue: taskQueue,
    retryPolicy: { initialIntervalMs: 50, multiplier: 1, maxIntervalMs: 50, immediateRetries: 0 },
    localCallback: true,
    ...overrides,
  };
}

function start(input: TaskSpec) {
  return client.workflow.start<typeof delayedTask>(TASK_WORKFLOW_TYPE, {
    workflowId: input.taskId,
    taskQueue,
    args: [input],
  });
}

describe('delayedTask with mocked activities', () => {
  it.each([
    { shape: 'local callback (v2)', localCallback: true },
    { shape: 'regular activity', localCallback: false },
  ])('calls back once and succeeds: $shape', async ({ localCallback }) => {
    const input = spec({ localCallback });
    const result = await (await start(input)).result();
    expect(result).toMatchObject({ status: 'SUCCEEDED', attempts: 1, lastError: null });
    expect(calls.get(input.taskId)).toHaveLength(1);
    expect(calls.get(input.taskId)?.[0]).toMatchObject({
      taskId: input.taskId,
      callbackUrl: input.callbackUrl,
      attempt: 1,
    });
  });

  it.each([
    { script: ['retry', 'ok'] as const, status: 'SUCCEEDED', attempts: 2 },
    { script: ['retry'] as const, status: 'FAILED', attempts: 3 },
    { script: ['permanent'] as const, status: 'FAILED', attempts: 1 },
  ])('answers $script: $status after $attempts attempt(s)', async ({ script, status, attempts }) => {
    const input = spec();
    scripts.set(input.taskId, [...script]);
    const handle = await start(input);
    let state: TaskState;
    if (status === 'SUCCEEDED') {
      state = await handle.result();
    } else {
      const err = await handle.result().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(WorkflowFailedError);
      const cause = (err as WorkflowFailedError).cause as ApplicationFailure;
      expect(cause.type).toBe(TASK_FAILED_TYPE);
      state = cause.details?.[0] as TaskState;
    }
    expect(state).toMatchObject({ status, attempts });
    expect(calls.get(input.taskId)).toHaveLength(attempts);
    expect(state.attemptHistory?.map((a) => a.outcome).at(-1)).toBe(
      status === 'SUCCEEDED'
        ? 'SUCCEEDED'
        : script.at(-1) === 'permanent'
          ? 'PERMANENT_ERROR'
          : 'RETRYABLE_ERROR',
    );
  });

  it('never calls back a task cancelled while it sleeps', async () => {
    const input = spec({ executeAt: new Date(Date.now() + 3_600_000).toISOString() });
    const handle = await start(input);
    await waitFor(async () => (await handle.query(statusQuery)).status === 'SCHEDULED');
    await handle.signal(cancelSignal, { reason: 'test' });
    const result = await handle.result();
    expect(result.status).toBe('CANCELLED');
    expect(calls.get(input.taskId)).toBeUndefined();
  });
});
