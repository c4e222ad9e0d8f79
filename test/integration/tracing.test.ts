/**
 * Traces, read back from a real trace store: the API and worker processes run as deployed, with the
 * standard OTEL_* variables pointing at Jaeger (the API over OTLP HTTP/protobuf, the worker over
 * OTLP gRPC). A task is one trace: the caller's span → the API's request span → StartWorkflow →
 * RunWorkflow → StartActivity → RunActivity → the callback's POST, whose context reaches the
 * receiver as `traceparent`. Skipped only on a developer's machine without Jaeger (scripts/jaeger.sh
 * builds it); CI (CI=true) builds it and fails here without it.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import proto from '@temporalio/proto';
import { Client, Connection } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/config/environment.js';
import { loadPayloadKeyring } from '../../src/security/payload-codec.js';
import { TASK_WORKFLOW_TYPE } from '../../src/shared/constants.js';
import { createDataConverter } from '../../src/temporal/data-converter.js';
import { quietRuntime } from '../helpers/harness.js';
import { Jaeger, jaegerPath, type JaegerSpan, type JaegerTrace } from '../helpers/jaeger.js';
import { freePort, ServiceProcess } from '../helpers/processes.js';
import { CallbackReceiver } from '../helpers/receiver.js';
import { TEST_ENV } from '../helpers/test-env.js';
import { waitFor } from '../helpers/wait.js';
import { HISTORIES_DIR } from '../replay/fixtures.js';

const { EventType } = proto.temporal.api.enums.v1;

const binary = jaegerPath();
const required = process.env.CI === 'true';

let jaeger: Jaeger;
let api: ServiceProcess;
let worker: ServiceProcess;
let receiver: CallbackReceiver;
let apiUrl: string;
const taskQueue = `traces-${randomUUID()}`;

beforeAll(async () => {
  if (!binary) return;
  jaeger = await Jaeger.start(binary);
  receiver = await CallbackReceiver.start();
  const [apiPort, workerPort, sdkPort] = await Promise.all([freePort(), freePort(), freePort()]);
  const env = { TEMPORAL_ADDRESS: inject('temporalAddress'), TASK_QUEUE: taskQueue, LOG_LEVEL: 'warn' };
  api = new ServiceProcess('api', 'src/api/main.ts', {
    ...env,
    PORT: String(apiPort),
    OTEL_EXPORTER_OTLP_ENDPOINT: jaeger.otlpHttp,
  });
  worker = new ServiceProcess('worker', 'src/worker/main.ts', {
    ...env,
    WORKER_PORT: String(workerPort),
    WORKER_SDK_METRICS_PORT: String(sdkPort),
    OTEL_TRACES_EXPORTER: 'otlp',
    OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
    OTEL_EXPORTER_OTLP_ENDPOINT: jaeger.otlpGrpc,
  });
  apiUrl = `http://127.0.0.1:${apiPort}`;
  await api.waitUntilHealthy(`${apiUrl}/readyz`);
  await worker.waitUntilHealthy(`http://127.0.0.1:${workerPort}/readyz`, 110_000);
}, 180_000);

afterAll(async () => {
  await api?.stop();
  await worker?.stop();
  await receiver?.close();
  await jaeger?.stop();
});

async function createTask(headers: Record<string, string> = {}): Promise<string> {
  const response = await fetch(`${apiUrl}/api/v1/tasks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({
      taskType: 'report.ready',
      payload: { report: 7 },
      delaySeconds: 1,
      callbackUrl: `${receiver.url}/reports?token=never-in-a-span`,
    }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { taskId: string }).taskId;
}

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

/** Waits until Jaeger has every span named, from both processes (the batch exporters flush every 5 s). */
async function storedTrace(traceId: string, names: string[]): Promise<JaegerTrace> {
  return waitFor(
    async () => {
      const trace = await jaeger.trace(traceId);
      return trace && names.every((name) => trace.spans.some((s) => s.operationName === name)) && trace;
    },
    { timeoutMs: 45_000, intervalMs: 500, what: `spans ${names.join(', ')} of trace ${traceId} in Jaeger` },
  );
}

function span(trace: JaegerTrace, name: string): JaegerSpan {
  const found = trace.spans.filter((s) => s.operationName === name);
  expect(
    found.map((s) => s.operationName),
    `one span ${name}`,
  ).toEqual([name]);
  return found[0]!;
}

const parentOf = (s: JaegerSpan) => s.references.find((r) => r.refType === 'CHILD_OF')?.spanID;
const serviceOf = (trace: JaegerTrace, s: JaegerSpan) => trace.processes[s.processID]?.serviceName;
const tag = (s: JaegerSpan, key: string) => s.tags.find((t) => t.key === key)?.value;

const CHAIN = [
  'POST /api/v1/tasks',
  `StartWorkflow:${TASK_WORKFLOW_TYPE}`,
  `RunWorkflow:${TASK_WORKFLOW_TYPE}`,
  'StartActivity:deliverCallback',
  'RunActivity:deliverCallback',
  'POST',
];

describe.skipIf(!binary && !required)('traces in Jaeger', () => {
  it('Jaeger is there (scripts/jaeger.sh builds it; CI runs it)', () => {
    expect(
      binary,
      'jaeger is required under CI=true: scripts/jaeger.sh builds it into .tools/',
    ).toBeDefined();
  });

  it("one trace per task, from the caller's traceparent to the callback's", async () => {
    const traceId = hex(16);
    const callerSpan = hex(8);
    const taskId = await createTask({ traceparent: `00-${traceId}-${callerSpan}-01` });
    const [callback] = await receiver.waitForCalls(taskId, 1);
    const sent = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(String(callback!.headers.traceparent));
    expect(sent?.[1], 'the callback continues the caller trace').toBe(traceId);

    const trace = await storedTrace(traceId, CHAIN);
    const chain = CHAIN.map((name) => span(trace, name));
    // Each span is the child of the one before it; the first, of the caller's.
    expect(chain.map(parentOf)).toEqual([callerSpan, ...chain.slice(0, -1).map((s) => s.spanID)]);
    expect(chain.map((s) => serviceOf(trace, s))).toEqual([
      'delayed-task-api',
      'delayed-task-api',
      'delayed-task-worker',
      'delayed-task-worker',
      'delayed-task-worker',
      'delayed-task-worker',
    ]);
    const post = chain.at(-1)!;
    expect(sent?.[2], "the receiver's parent span is the POST span").toBe(post.spanID);
    expect(tag(post, 'http.response.status_code')).toBe(200);
    // The callback URL's query string (a partner's token) never reaches the trace store.
    expect(tag(post, 'url.full')).toBe(`${receiver.url}/reports?[redacted]`);
    // Nor does the memo, which holds the URL: the workflow's spans say which task and run, no more.
    expect(JSON.stringify(trace)).not.toContain('never-in-a-span');
    expect(tag(chain[2]!, 'workflowId')).toBe(taskId);
    expect(tag(chain[2]!, 'memo')).toBeUndefined();
    expect(tag(chain[0]!, 'http.response.status_code')).toBe(201);
  });

  it('a task created without traceparent is a trace of its own, rooted at the API', async () => {
    const taskId = await createTask();
    const [callback] = await receiver.waitForCalls(taskId, 1);
    const traceId = /^00-([0-9a-f]{32})-/.exec(String(callback!.headers.traceparent))?.[1];
    expect(traceId).toBeDefined();
    const trace = await storedTrace(traceId!, CHAIN);
    expect(parentOf(span(trace, 'POST /api/v1/tasks'))).toBeUndefined();
    expect(trace.spans.length).toBe(CHAIN.length);
  });

  it('probes make no spans', async () => {
    const traceId = hex(16);
    const response = await fetch(`${apiUrl}/healthz`, {
      headers: { traceparent: `00-${traceId}-${hex(8)}-01` },
    });
    expect(response.status).toBe(200);
    // A task created after the probe is in Jaeger once the API's exporter has flushed: the probe never is.
    const after = hex(16);
    await createTask({ traceparent: `00-${after}-${hex(8)}-01` });
    await storedTrace(after, ['POST /api/v1/tasks']);
    expect(await jaeger.trace(traceId)).toBeUndefined();
  });

  it("a traced task's history has an untraced task's events, and replays without the interceptors (tracing turned off)", async () => {
    const traceId = hex(16);
    const taskId = await createTask({ traceparent: `00-${traceId}-${hex(8)}-01` });
    await receiver.waitForCalls(taskId, 1);
    quietRuntime();
    const connection = await Connection.connect({ address: inject('temporalAddress') });
    const dataConverter = createDataConverter(loadPayloadKeyring(loadConfig({ ...TEST_ENV }).encryption));
    const client = new Client({ connection, dataConverter });
    const handle = client.workflow.getHandle(taskId);
    await waitFor(async () => (await handle.describe()).status.name === 'COMPLETED', {
      what: `${taskId} completed`,
    });
    const history = await handle.fetchHistory();
    await connection.close();
    // The same events as the untraced task recorded in test/fixtures (due in 1 s, one 200).
    const recorded = JSON.parse(readFileSync(join(HISTORIES_DIR, 'v2', 'succeeded.json'), 'utf8')) as {
      events: Array<{ eventType: string }>;
    };
    expect(history.events?.map((event) => EventType[event.eventType ?? 0])).toEqual(
      recorded.events.map((event) => event.eventType),
    );
    // Its headers carry the trace context; the commands are the same as an untraced task's.
    await Worker.runReplayHistory(
      {
        workflowBundle: { codePath: inject('workflowBundlePath') },
        dataConverter,
        sinks: { taskMetrics: { finished: { fn: () => undefined, callDuringReplay: false } } },
      },
      history,
      taskId,
    );
  });
});
