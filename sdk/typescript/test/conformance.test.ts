/**
 * Runs the shared vectors (conformance/README.md) against this SDK: client cases (and the lease
 * verbs of conformance/pull/wire-vectors.json) against a loopback node:http stub serving the
 * vectors' responses, callback cases through verify + parse, and the
 * receiver cases (callbacks/receiver.json) through every receiving adapter the SDK ships.
 */
import { createServer, type Server } from 'node:http';
import { readdirSync, readFileSync } from 'node:fs';
import { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import express from 'express';
import Fastify from 'fastify';
import { callbackMiddleware } from '../src/express.js';
import { callbackPlugin } from '../src/fastify.js';
import {
  createNodeHandler,
  createReceiver,
  DelayedTaskError,
  DelayedTasksClient,
  parseCallback,
  PermanentError,
  RetryableError,
  WebhookVerifier,
  type CallbackHandler,
  type ReceiverOptions,
} from '../src/index.js';

const root = new URL('../../../conformance/', import.meta.url);

/** The cases of every JSON file of a folder that `select` takes (receiver.json has its own format). */
function load<T>(folder: string, select: (file: string) => boolean = () => true): T[] {
  const dir = new URL(`${folder}/`, root);
  return readdirSync(dir)
    .filter((file) => file.endsWith('.json') && select(file))
    .sort()
    .flatMap((file) =>
      (JSON.parse(readFileSync(new URL(file, dir), 'utf8')) as T[]).map((c) => ({ ...c, file })),
    );
}

type Operation =
  | 'create'
  | 'createTasks'
  | 'status'
  | 'cancel'
  | 'list'
  | 'listAll'
  | 'reschedule'
  | 'replay'
  | 'createSchedule'
  | 'getSchedule'
  | 'listSchedules'
  | 'updateSchedule'
  | 'pauseSchedule'
  | 'resumeSchedule'
  | 'triggerSchedule'
  | 'backfillSchedule'
  | 'deleteSchedule'
  | 'lease'
  | 'ack'
  | 'nack'
  | 'extend'
  | 'release';

interface ClientCase {
  name: string;
  file: string;
  operation: Operation;
  options?: { apiKey?: string; maxRetries?: number };
  input: Record<string, unknown>;
  requests: ExpectedRequest[];
  responses: Array<{ status: number; headers?: Record<string, string>; body?: unknown; bodyText?: string }>;
  expect: {
    result?: unknown;
    error?: {
      code: string;
      status: number;
      details?: Array<{ field: string; reason?: string }>;
      requestId?: string;
    };
    minElapsedMs?: number;
    maxElapsedMs?: number;
  };
}

interface ExpectedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers?: Record<string, unknown>;
  body?: unknown;
}

interface SeenRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** Input tags -> native values (README "Input tags"). */
function native(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(native);
  if (value === null || typeof value !== 'object') return value;
  const tagged = value as Record<string, unknown>;
  if ('$float' in tagged) return Number(tagged.$float);
  if ('$int' in tagged) return BigInt(tagged.$int as string);
  if ('$time' in tagged) return new Date(tagged.$time as string);
  if ('$localtime' in tagged) return tagged.$localtime;
  if ('$duration' in tagged) return tagged.$duration;
  return Object.fromEntries(Object.entries(tagged).map(([key, item]) => [key, native(item)]));
}

/** A result as JSON would show it: Dates as RFC 3339 UTC with milliseconds. */
function plain(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(plain);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, plain(item)]));
  }
  return value;
}

/** Objects: the listed fields, recursively; arrays: same length, element-wise; else equal. */
function expectSubset(actual: unknown, expected: unknown, path = 'result'): void {
  if (Array.isArray(expected)) {
    expect(Array.isArray(actual), `${path} is an array`).toBe(true);
    expect((actual as unknown[]).length, `${path}.length`).toBe(expected.length);
    expected.forEach((item, index) => expectSubset((actual as unknown[])[index], item, `${path}.${index}`));
  } else if (expected !== null && typeof expected === 'object' && '$int' in expected) {
    expect(actual, path).toBe(BigInt((expected as { $int: string }).$int));
  } else if (expected !== null && typeof expected === 'object') {
    expect(actual !== null && typeof actual === 'object', `${path} is an object`).toBe(true);
    for (const [key, item] of Object.entries(expected)) {
      expectSubset((actual as Record<string, unknown>)[key], item, `${path}.${key}`);
    }
  } else {
    expect(actual, path).toEqual(expected);
  }
}

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Exact JSON equality, with `{"$match": "uuid"}` standing for one UUID v4 across the case. */
function expectBody(actual: unknown, expected: unknown, uuids: { value?: string }, path: string): void {
  if (expected !== null && typeof expected === 'object' && !Array.isArray(expected) && '$match' in expected) {
    expect(actual, path).toMatch(UUID_V4);
    uuids.value ??= actual as string;
    expect(actual, `${path} is the same UUID in every request`).toBe(uuids.value);
  } else if (expected !== null && typeof expected === 'object') {
    expect(
      typeof actual === 'object' && actual !== null && Array.isArray(actual) === Array.isArray(expected),
      path,
    ).toBe(true);
    expect(Object.keys(actual as object).sort(), `${path} keys`).toEqual(Object.keys(expected).sort());
    for (const [key, item] of Object.entries(expected)) {
      expectBody((actual as Record<string, unknown>)[key], item, uuids, `${path}.${key}`);
    }
  } else {
    expect(actual, path).toEqual(expected);
  }
}

function expectRequest(seen: SeenRequest, wanted: ExpectedRequest, uuids: { value?: string }, index: number) {
  const at = `request ${index}`;
  expect(seen.method, `${at} method`).toBe(wanted.method);
  expect(seen.path, `${at} path`).toBe(wanted.path);
  expect(seen.query, `${at} query`).toEqual(wanted.query);
  for (const [name, value] of Object.entries(wanted.headers ?? {})) {
    const actual = seen.headers[name];
    if (value === null) expect(actual, `${at} header ${name} absent`).toBeUndefined();
    else if (typeof value === 'object')
      expect(actual, `${at} header ${name}`).toMatch(/^delayed-tasks-typescript\/\S+$/);
    else expect(actual, `${at} header ${name}`).toBe(value);
  }
  if (wanted.body === null || wanted.body === undefined) expect(seen.body, `${at} has no body`).toBe('');
  else expectBody(JSON.parse(seen.body), wanted.body, uuids, `${at} body`);
}

/** The loopback stub: records each request and answers the case's responses in order. */
class Stub {
  seen: SeenRequest[] = [];
  responses: ClientCase['responses'] = [];
  private readonly server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const [path = '', search = ''] = (req.url ?? '').split('?');
      this.seen.push({
        method: req.method ?? '',
        path,
        query: Object.fromEntries(new URLSearchParams(search)),
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      const response = this.responses[this.seen.length - 1];
      if (!response) {
        res.writeHead(599).end();
        return;
      }
      const text = response.bodyText ?? (response.body === undefined ? '' : JSON.stringify(response.body));
      res.writeHead(response.status, { 'content-type': 'application/json', ...response.headers }).end(text);
    });
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    await new Promise((resolve) => this.server.close(resolve));
  }
}

async function run(
  client: DelayedTasksClient,
  operation: ClientCase['operation'],
  input: Record<string, unknown>,
) {
  const { taskId, ...rest } = input as { taskId: string } & Record<string, unknown>;
  const { scheduleId, ...changes } = input as { scheduleId: string } & Record<string, unknown>;
  const { leaseToken, ...nack } = input as { leaseToken: string } & Record<string, unknown>;
  switch (operation) {
    case 'lease':
      return client.lease(input as never);
    case 'ack':
      return client.ack(leaseToken);
    case 'nack':
      return client.nack(leaseToken, nack);
    case 'extend':
      return client.extend(leaseToken);
    case 'release':
      return client.release(leaseToken);
    case 'createSchedule':
      return client.createSchedule(input as never);
    case 'getSchedule':
      return client.getSchedule(scheduleId);
    case 'listSchedules':
      return client.listSchedules(input);
    case 'updateSchedule':
      return client.updateSchedule(scheduleId, changes);
    case 'pauseSchedule':
      return client.pauseSchedule(scheduleId, changes.note as string | undefined);
    case 'resumeSchedule':
      return client.resumeSchedule(scheduleId, changes.note as string | undefined);
    case 'triggerSchedule':
      return client.triggerSchedule(scheduleId, changes);
    case 'backfillSchedule':
      return client.backfillSchedule(scheduleId, changes as never);
    case 'deleteSchedule':
      // Returns nothing: the vectors' `null`.
      return (await client.deleteSchedule(scheduleId)) ?? null;
    case 'create':
      return client.create(input as never);
    case 'createTasks':
      return client.createTasks(input.tasks as never);
    case 'status':
      return client.status(taskId);
    case 'cancel':
      return client.cancel(taskId);
    case 'reschedule':
      return client.reschedule(taskId, rest as never);
    case 'replay':
      return client.replay(taskId, rest);
    case 'list':
      return client.list(input);
    case 'listAll': {
      const tasks = [];
      for await (const task of client.listAll(input)) tasks.push(task);
      return { tasks };
    }
  }
}

describe('client vectors', () => {
  const stub = new Stub();
  let baseUrl: string;
  beforeAll(async () => {
    baseUrl = await stub.start();
  });
  afterAll(() => stub.stop());

  const cases = [
    ...load<ClientCase>('client'),
    ...load<ClientCase>('pull', (file) => file === 'wire-vectors.json'),
  ];
  it.each(cases.map((c) => [`${c.file}: ${c.name}`, c] as const))('%s', async (_, c) => {
    stub.seen = [];
    stub.responses = c.responses;
    const client = new DelayedTasksClient({
      baseUrl,
      apiKey: c.options?.apiKey,
      timeoutMs: 5000,
      retry: { baseDelayMs: 0, maxDelayMs: 0, maxRetries: c.options?.maxRetries ?? 3 },
    });
    const started = Date.now();
    let result: unknown;
    let error: unknown;
    try {
      result = await run(client, c.operation, native(c.input) as Record<string, unknown>);
    } catch (err) {
      error = err;
    }
    const elapsed = Date.now() - started;

    expect(stub.seen.length, 'number of requests').toBe(c.requests.length);
    const uuids = {};
    c.requests.forEach((wanted, index) =>
      expectRequest(stub.seen[index] as SeenRequest, wanted, uuids, index),
    );
    if (c.expect.error) {
      expect(error, `expected ${c.expect.error.code}, got ${JSON.stringify(plain(result))}`).toBeInstanceOf(
        DelayedTaskError,
      );
      const actual = error as DelayedTaskError;
      expect({ code: actual.code, status: actual.status }).toEqual({
        code: c.expect.error.code,
        status: c.expect.error.status,
      });
      if (c.expect.error.details) {
        // Fields in order and count; the reason word for word where the vector gives one.
        expect(actual.details.map((d) => d.field)).toEqual(c.expect.error.details.map((d) => d.field));
        c.expect.error.details.forEach((wanted, index) => {
          if (wanted.reason !== undefined) expect(actual.details[index]?.reason).toBe(wanted.reason);
        });
        if (actual.status === 0) {
          const [detail] = actual.details;
          expect(actual.message, 'a local refusal says "<field> <reason>"').toBe(
            `${detail?.field} ${detail?.reason}`,
          );
        }
      }
      if (c.expect.error.requestId) expect(actual.requestId).toBe(c.expect.error.requestId);
    } else {
      if (error) throw error;
      expectSubset(plain(result), c.expect.result);
    }
    if (c.expect.minElapsedMs) expect(elapsed).toBeGreaterThanOrEqual(c.expect.minElapsedMs);
    if (c.expect.maxElapsedMs) expect(elapsed).toBeLessThanOrEqual(c.expect.maxElapsedMs);
  });
});

interface CallbackCase {
  name: string;
  file: string;
  secrets: string[];
  now: number;
  toleranceSeconds: number;
  headers: Record<string, string>;
  body: string;
  expect: { callback?: Record<string, unknown>; error?: string };
}

describe('callback vectors', () => {
  const verifyCases = load<CallbackCase>('callbacks', (file) => file !== RECEIVER_FILE);
  it.each(verifyCases.map((c) => [`${c.file}: ${c.name}`, c] as const))('%s', (_, c) => {
    const verifier = new WebhookVerifier({
      secrets: c.secrets,
      toleranceSeconds: c.toleranceSeconds,
      now: () => c.now * 1000,
    });
    const receive = () => {
      verifier.verify(c.headers, Buffer.from(c.body, 'utf8'));
      return parseCallback(Buffer.from(c.body, 'utf8'));
    };
    if (c.expect.error) {
      expect(receive).toThrow(
        expect.objectContaining({ name: 'CallbackRejectedError', reason: c.expect.error }),
      );
    } else {
      expectSubset(plain(receive()), c.expect.callback, 'callback');
    }
  });
});

/** callbacks/receiver.json: the whole receiving endpoint (README "callbacks/receiver.json"). */
const RECEIVER_FILE = 'receiver.json';

type Behaviour = 'handle' | 'retry' | 'fail' | 'throw';

interface ReceiverCase {
  name: string;
  file: string;
  receiver: {
    secrets: string[];
    allowUnsigned?: boolean;
    now: number;
    toleranceSeconds: number;
    handlers: Record<string, Behaviour>;
  };
  deliveries: Array<{
    headers: Record<string, string>;
    body: string;
    expect: { status: number; body: unknown; headers?: Record<string, string>; handlerCalls: number };
  }>;
  expect?: { refusedToBuild?: boolean };
}

/** What a delivery got back, whatever carried it. */
interface Answer {
  status: number;
  headers: Record<string, string | undefined>;
  body: unknown;
}

interface Endpoint {
  post(headers: Record<string, string>, body: string): Promise<Answer>;
  close(): Promise<void>;
}

/** The vector's test handlers in this SDK's way: return, RetryableError(30 s), PermanentError, throw. */
function handlersOf(behaviours: Record<string, Behaviour>, calls: { count: number }) {
  const handler =
    (behaviour: Behaviour): CallbackHandler =>
    () => {
      calls.count++;
      switch (behaviour) {
        case 'handle':
          return;
        case 'retry':
          throw new RetryableError('asked to retry', 30);
        case 'fail':
          throw new PermanentError('failed for good');
        case 'throw':
          throw new Error('internal detail that must not leak');
      }
    };
  return Object.fromEntries(
    Object.entries(behaviours).map(([type, behaviour]) => [type, handler(behaviour)]),
  );
}

/** A node:http server on loopback, reached with fetch. */
async function overHttp(server: Server): Promise<Endpoint> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callbacks`;
  return {
    async post(headers, body) {
      const response = await fetch(url, { method: 'POST', headers, body });
      return {
        status: response.status,
        headers: Object.fromEntries(response.headers),
        body: JSON.parse(await response.text()) as unknown,
      };
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Each adapter builds the receiver from the same options; building may throw (refusedToBuild). */
const adapters: Record<string, (options: ReceiverOptions) => Promise<Endpoint>> = {
  createReceiver: async (options) => {
    const receive = createReceiver(options);
    return {
      post: async (headers, body) => {
        const { status, headers: answered, body: json } = await receive(headers, Buffer.from(body, 'utf8'));
        // As it goes on the wire: the body through JSON.
        return { status, headers: answered, body: JSON.parse(JSON.stringify(json)) as unknown };
      },
      close: async () => undefined,
    };
  },
  'node:http': async (options) => overHttp(createServer(createNodeHandler(options))),
  express: async (options) => {
    const app = express();
    app.post('/callbacks', callbackMiddleware(options));
    return overHttp(createServer(app));
  },
  fastify: async (options) => {
    const app = Fastify();
    await app.register(callbackPlugin, { ...options, path: '/callbacks' });
    await app.ready();
    return {
      async post(headers, body) {
        const response = await app.inject({ method: 'POST', url: '/callbacks', headers, payload: body });
        return {
          status: response.statusCode,
          headers: response.headers as Record<string, string>,
          body: response.json(),
        };
      },
      close: () => app.close(),
    };
  },
};

describe.each(Object.keys(adapters))('receiver vectors through %s', (adapter) => {
  const build = adapters[adapter] as (typeof adapters)[string];
  const cases = load<ReceiverCase>('callbacks', (file) => file === RECEIVER_FILE);

  it.each(cases.map((c) => [`${c.file}: ${c.name}`, c] as const))('%s', async (_, c) => {
    const calls = { count: 0 };
    const options: ReceiverOptions = {
      secrets: c.receiver.secrets,
      allowUnsigned: c.receiver.allowUnsigned,
      toleranceSeconds: c.receiver.toleranceSeconds,
      now: () => c.receiver.now * 1000,
      handlers: handlersOf(c.receiver.handlers, calls),
    };
    if (c.expect?.refusedToBuild) {
      await expect(build(options)).rejects.toThrow(/secrets are required/);
      return;
    }
    const endpoint = await build(options);
    try {
      for (const [index, delivery] of c.deliveries.entries()) {
        const at = `delivery ${index}`;
        const answer = await endpoint.post(delivery.headers, delivery.body);
        expect(answer.status, `${at} status`).toBe(delivery.expect.status);
        expect(answer.body, `${at} body`).toEqual(delivery.expect.body);
        expect(answer.headers['content-type'], `${at} content-type`).toMatch(/^application\/json\b/);
        for (const [name, value] of Object.entries(delivery.expect.headers ?? {})) {
          expect(answer.headers[name], `${at} header ${name}`).toBe(value);
        }
        expect(calls.count, `${at} handler calls`).toBe(delivery.expect.handlerCalls);
      }
    } finally {
      await endpoint.close();
    }
  });
});
