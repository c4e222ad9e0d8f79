/**
 * Writes conformance/client/*.json and conformance/callbacks/*.json reproducibly (fixed secrets,
 * ids and timestamps). Callback signatures come from the published `standardwebhooks` package, an
 * implementation independent of every SDK here. Run: `npx tsx conformance/generate.ts`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { format } from 'prettier';
import { receiverCases, verifyCases } from './callback-vectors.js';

const here = fileURLToPath(new URL('.', import.meta.url));

/** Written as Prettier formats it, so `npm run lint` and a rerun agree byte for byte. */
async function write(folder: string, name: string, cases: unknown[]): Promise<void> {
  mkdirSync(`${here}${folder}`, { recursive: true });
  const text = await format(JSON.stringify(cases), { parser: 'json', printWidth: 110 });
  writeFileSync(`${here}${folder}/${name}.json`, text);
}

// ---------------------------------------------------------------- client vectors

const UUID = { $match: 'uuid' };
/**
 * The most a call may take after a `Retry-After: 1` (runners zero the backoff): an SDK that sleeps
 * its own cap (30 s) instead, or the header in the wrong unit, fails; a loaded CI machine passes.
 */
const RETRY_AFTER_CEILING_MS = 6000;
const JSON_HEADERS = { 'content-type': 'application/json' };

function task(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    taskId: 't-1',
    owner: 'default',
    taskType: 'order.close',
    status: 'SCHEDULED',
    executeAt: '2026-12-03T10:30:00.000Z',
    createdAt: '2026-12-03T10:00:00.000Z',
    payload: { a: 1 },
    payloadVersion: 1,
    callbackUrl: 'http://127.0.0.1:9/cb',
    maxRetries: 3,
    timeoutMs: 30000,
    traceId: null,
    priority: 3,
    attempts: 0,
    lastError: null,
    nextAttemptAt: null,
    firedAt: null,
    completedAt: null,
    ...overrides,
  };
}

function summary(taskId: string): Record<string, unknown> {
  return {
    taskId,
    owner: 'default',
    taskType: 'order.close',
    status: 'FAILED',
    executeAt: '2026-12-03T10:30:00.000Z',
    createdAt: '2026-12-03T10:00:00.000Z',
    callbackUrl: 'http://127.0.0.1:9/cb',
    priority: 3,
    attempts: 4,
    lastError: { message: 'callback answered 500', statusCode: 500 },
    completedAt: '2026-12-03T10:31:00.000Z',
  };
}

function ok(body: unknown, status = 200, headers: Record<string, string> = {}) {
  return { status, headers: { ...JSON_HEADERS, ...headers }, body };
}

function apiError(status: number, code: string, message: string, details?: unknown[], headers = {}) {
  return ok({ error: { code, message, ...(details ? { details } : {}) } }, status, headers);
}

const CREATE_PATH = '/api/v1/tasks';
const createRequest = (body: Record<string, unknown>, headers: Record<string, unknown> = {}) => ({
  method: 'POST',
  path: CREATE_PATH,
  query: {},
  headers: { 'content-type': 'application/json', ...headers },
  body,
});
const baseInput = { taskType: 'order.close', payload: { a: 1 }, callbackUrl: 'http://127.0.0.1:9/cb' };

/** A create refused before sending: no request, INVALID_ARGUMENT, status 0, one detail. */
/**
 * The reasons every SDK gives for the checks it makes before sending, word for word (the
 * runners compare them): a team reading logs from four languages sees one text per fault.
 */
export const REASONS = {
  notFinite: 'is not a finite number',
  unsafeInteger: 'is an integer beyond ±(2^53-1); send large ids and amounts as strings',
  noOffset: 'must be an RFC 3339 time with an offset (Z or +08:00)',
  exactlyOne: 'give exactly one of delaySeconds or executeAt',
  atMostOne: 'give at most one of delaySeconds or executeAt',
  negative: 'must not be negative',
  notObject: 'must be a JSON object',
} as const;

function refused(operation: string, name: string, input: unknown, field: string, reason: string) {
  return {
    name,
    operation,
    input,
    requests: [],
    responses: [],
    expect: { error: { code: 'INVALID_ARGUMENT', status: 0, details: [{ field, reason }] } },
  };
}

function refusedCreate(name: string, input: Record<string, unknown>, field: string, reason: string) {
  return refused('create', name, input, field, reason);
}

const create = [
  {
    name: 'create with delay and generated task id, auth header and user agent',
    operation: 'create',
    options: { apiKey: 'dts_k1_secret' },
    input: { ...baseInput, delaySeconds: { $duration: 1.5 } },
    requests: [
      createRequest(
        { ...baseInput, delaySeconds: 1.5, taskId: UUID },
        { authorization: 'Bearer dts_k1_secret', 'user-agent': { $match: 'userAgent' } },
      ),
    ],
    responses: [ok(task(), 201)],
    expect: { result: { created: true, task: task() } },
  },
  {
    name: 'create without api key sends no authorization header',
    operation: 'create',
    // A delay of 1 s, not 0: Go's zero Delay means "not set".
    input: { ...baseInput, taskId: 't-1', delaySeconds: { $duration: 1 } },
    requests: [createRequest({ ...baseInput, taskId: 't-1', delaySeconds: 1 }, { authorization: null })],
    responses: [ok(task(), 201)],
    expect: { result: { created: true, task: { taskId: 't-1' } } },
  },
  {
    name: 'create with every field; executeAt with an offset is sent as UTC with milliseconds; 200 means not created',
    operation: 'create',
    input: {
      taskType: 'order.close',
      payload: { orderId: '10023', amount: 12.5, tags: ['a', 'b'], nested: { ok: true, none: null } },
      executeAt: { $time: '2026-12-03T18:30:00+08:00' },
      callbackUrl: 'https://orders.example/cb',
      taskId: 'order-10023-close',
      maxRetries: 5,
      timeoutMs: 2000,
      payloadVersion: 2,
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      priority: 1,
    },
    requests: [
      createRequest({
        taskType: 'order.close',
        payload: { orderId: '10023', amount: 12.5, tags: ['a', 'b'], nested: { ok: true, none: null } },
        executeAt: '2026-12-03T10:30:00.000Z',
        callbackUrl: 'https://orders.example/cb',
        taskId: 'order-10023-close',
        maxRetries: 5,
        timeoutMs: 2000,
        payloadVersion: 2,
        traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
        priority: 1,
      }),
    ],
    responses: [
      ok(
        task({
          taskId: 'order-10023-close',
          payloadVersion: 2,
          maxRetries: 5,
          timeoutMs: 2000,
          priority: 1,
          traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
        }),
      ),
    ],
    expect: {
      result: {
        created: false,
        task: {
          taskId: 'order-10023-close',
          executeAt: '2026-12-03T10:30:00.000Z',
          traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
        },
      },
    },
  },
  {
    name: 'create with executeAt in UTC keeps its milliseconds',
    operation: 'create',
    input: { ...baseInput, taskId: 't-1', executeAt: { $time: '2026-12-03T10:30:00.123Z' } },
    requests: [createRequest({ ...baseInput, taskId: 't-1', executeAt: '2026-12-03T10:30:00.123Z' })],
    responses: [ok(task({ executeAt: '2026-12-03T10:30:00.123Z' }), 201)],
    expect: { result: { created: true, task: { executeAt: '2026-12-03T10:30:00.123Z' } } },
  },
  {
    name: 'create with a fractional delay in milliseconds',
    operation: 'create',
    input: { ...baseInput, taskId: 't-1', delaySeconds: { $duration: 0.25 } },
    requests: [createRequest({ ...baseInput, taskId: 't-1', delaySeconds: 0.25 })],
    responses: [ok(task(), 201)],
    expect: { result: { created: true } },
  },
  {
    name: 'create with integers at ±(2^53-1) sends them exactly',
    operation: 'create',
    input: {
      ...baseInput,
      taskId: 't-1',
      payload: { max: { $int: '9007199254740991' }, min: { $int: '-9007199254740991' }, small: 0.1 },
      delaySeconds: { $duration: 1 },
    },
    requests: [
      createRequest({
        ...baseInput,
        taskId: 't-1',
        payload: { max: 9007199254740991, min: -9007199254740991, small: 0.1 },
        delaySeconds: 1,
      }),
    ],
    responses: [ok(task(), 201)],
    expect: { result: { created: true } },
  },
  {
    name: 'create answered with the response times parsed',
    operation: 'create',
    input: { ...baseInput, taskId: 't-1', delaySeconds: { $duration: 60 } },
    requests: [createRequest({ ...baseInput, taskId: 't-1', delaySeconds: 60 })],
    responses: [
      ok(
        task({
          status: 'RUNNING',
          attempts: 1,
          lastError: { message: 'callback answered 503', statusCode: 503 },
          nextAttemptAt: '2026-12-03T10:30:02.000Z',
          firedAt: '2026-12-03T10:30:00.010Z',
        }),
      ),
    ],
    expect: {
      result: {
        created: false,
        task: {
          status: 'RUNNING',
          attempts: 1,
          lastError: { message: 'callback answered 503', statusCode: 503 },
          nextAttemptAt: '2026-12-03T10:30:02.000Z',
          firedAt: '2026-12-03T10:30:00.010Z',
          completedAt: null,
        },
      },
    },
  },
];

const R = REASONS;
const d1 = { $duration: 1 };
const checks = [
  refusedCreate(
    'NaN nested in objects',
    { ...baseInput, payload: { a: { b: { $float: 'NaN' } } }, delaySeconds: d1 },
    'payload.a.b',
    R.notFinite,
  ),
  refusedCreate(
    'Infinity in an array',
    { ...baseInput, payload: { items: [1, 2, { $float: 'Infinity' }] }, delaySeconds: d1 },
    'payload.items.2',
    R.notFinite,
  ),
  refusedCreate(
    '-Infinity in an object in an array',
    { ...baseInput, payload: { list: [{ v: 1 }, { v: { $float: '-Infinity' } }] }, delaySeconds: d1 },
    'payload.list.1.v',
    R.notFinite,
  ),
  refusedCreate(
    'NaN delay',
    { ...baseInput, delaySeconds: { $duration: { $float: 'NaN' } } },
    'delaySeconds',
    R.notFinite,
  ),
  refusedCreate(
    'integer 2^53',
    { ...baseInput, payload: { id: { $int: '9007199254740992' } }, delaySeconds: d1 },
    'payload.id',
    R.unsafeInteger,
  ),
  refusedCreate(
    'integer -2^53 nested',
    { ...baseInput, payload: { o: { n: { $int: '-9007199254740993' } } }, delaySeconds: d1 },
    'payload.o.n',
    R.unsafeInteger,
  ),
  refusedCreate(
    'big integer beyond 64 bits in an array',
    { ...baseInput, payload: { ids: [{ $int: '123456789012345678901234567890' }] }, delaySeconds: d1 },
    'payload.ids.0',
    R.unsafeInteger,
  ),
  refusedCreate(
    'float 1e300 (integral, beyond 2^53)',
    { ...baseInput, payload: { big: { $float: '1e300' } }, delaySeconds: d1 },
    'payload.big',
    R.unsafeInteger,
  ),
  refusedCreate(
    'time without offset',
    { ...baseInput, executeAt: { $localtime: '2026-12-03T18:30:00' } },
    'executeAt',
    R.noOffset,
  ),
  refusedCreate(
    'both delaySeconds and executeAt',
    { ...baseInput, delaySeconds: d1, executeAt: { $time: '2026-12-03T10:30:00Z' } },
    'delaySeconds',
    R.exactlyOne,
  ),
  refusedCreate('neither delaySeconds nor executeAt', { ...baseInput }, 'delaySeconds', R.exactlyOne),
  refusedCreate(
    'negative delay',
    { ...baseInput, delaySeconds: { $duration: -1 } },
    'delaySeconds',
    R.negative,
  ),
  refusedCreate(
    'payload an array',
    { ...baseInput, payload: [1, 2], delaySeconds: d1 },
    'payload',
    R.notObject,
  ),
  refusedCreate('payload a string', { ...baseInput, payload: 'x', delaySeconds: d1 }, 'payload', R.notObject),
  refusedCreate('payload a number', { ...baseInput, payload: 3, delaySeconds: d1 }, 'payload', R.notObject),
  refused(
    'reschedule',
    'reschedule with both',
    { taskId: 't-1', delaySeconds: d1, executeAt: { $time: '2026-12-03T10:30:00Z' } },
    'delaySeconds',
    R.exactlyOne,
  ),
  refused('reschedule', 'reschedule with neither', { taskId: 't-1' }, 'delaySeconds', R.exactlyOne),
  refused(
    'reschedule',
    'reschedule with a negative delay',
    { taskId: 't-1', delaySeconds: { $duration: -0.5 } },
    'delaySeconds',
    R.negative,
  ),
  refused(
    'reschedule',
    'reschedule to a time without offset',
    { taskId: 't-1', executeAt: { $localtime: '2026-12-03T18:30:00' } },
    'executeAt',
    R.noOffset,
  ),
  refused(
    'replay',
    'replay with NaN in the new payload',
    { taskId: 't-1', payload: { x: { $float: 'NaN' } } },
    'payload.x',
    R.notFinite,
  ),
  refused(
    'replay',
    'replay with a non-object payload',
    { taskId: 't-1', payload: ['x'] },
    'payload',
    R.notObject,
  ),
  refused(
    'replay',
    'replay with both delaySeconds and executeAt',
    { taskId: 't-1', delaySeconds: d1, executeAt: { $time: '2026-12-03T10:30:00Z' } },
    'delaySeconds',
    R.atMostOne,
  ),
  refused(
    'replay',
    'replay with a negative delay',
    { taskId: 't-1', delaySeconds: { $duration: -1 } },
    'delaySeconds',
    R.negative,
  ),
];

const noBody = (method: string, path: string, query: Record<string, string> = {}) => ({
  method,
  path,
  query,
  headers: { 'user-agent': { $match: 'userAgent' } },
  body: null,
});
const jsonBody = (path: string, body: unknown) => ({
  method: 'POST',
  path,
  query: {},
  headers: { 'content-type': 'application/json' },
  body,
});

const operations = [
  {
    name: 'status',
    operation: 'status',
    options: { apiKey: 'dts_k1_secret' },
    input: { taskId: 't-1' },
    requests: [{ ...noBody('GET', '/api/v1/tasks/t-1'), headers: { authorization: 'Bearer dts_k1_secret' } }],
    responses: [
      ok(
        task({
          status: 'SUCCEEDED',
          attempts: 1,
          firedAt: '2026-12-03T10:30:00.005Z',
          completedAt: '2026-12-03T10:30:00.120Z',
        }),
      ),
    ],
    expect: {
      result: task({
        status: 'SUCCEEDED',
        attempts: 1,
        firedAt: '2026-12-03T10:30:00.005Z',
        completedAt: '2026-12-03T10:30:00.120Z',
      }),
    },
  },
  {
    name: 'status percent-encodes the task id as one path segment',
    operation: 'status',
    input: { taskId: 'tâche 1/2?#%' },
    requests: [noBody('GET', '/api/v1/tasks/t%C3%A2che%201%2F2%3F%23%25')],
    responses: [apiError(404, 'TASK_NOT_FOUND', 'task not found')],
    expect: { error: { code: 'TASK_NOT_FOUND', status: 404 } },
  },
  {
    name: 'cancel posts no body',
    operation: 'cancel',
    input: { taskId: 'order-1.close_2' },
    requests: [noBody('POST', '/api/v1/tasks/order-1.close_2/cancel')],
    responses: [
      ok(task({ taskId: 'order-1.close_2', status: 'CANCELLED', completedAt: '2026-12-03T10:05:00.000Z' })),
    ],
    expect: {
      result: { taskId: 'order-1.close_2', status: 'CANCELLED', completedAt: '2026-12-03T10:05:00.000Z' },
    },
  },
  {
    name: 'reschedule with a delay',
    operation: 'reschedule',
    input: { taskId: 't-1', delaySeconds: { $duration: 600 } },
    requests: [jsonBody('/api/v1/tasks/t-1/reschedule', { delaySeconds: 600 })],
    responses: [ok(task({ executeAt: '2026-12-03T10:40:00.000Z' }))],
    expect: { result: { taskId: 't-1', executeAt: '2026-12-03T10:40:00.000Z' } },
  },
  {
    name: 'reschedule to a time with an offset',
    operation: 'reschedule',
    input: { taskId: 't-1', executeAt: { $time: '2026-12-03T11:00:00-05:00' } },
    requests: [jsonBody('/api/v1/tasks/t-1/reschedule', { executeAt: '2026-12-03T16:00:00.000Z' })],
    responses: [ok(task({ executeAt: '2026-12-03T16:00:00.000Z' }))],
    expect: { result: { executeAt: '2026-12-03T16:00:00.000Z' } },
  },
  {
    name: 'replay with no overrides sends an empty object',
    operation: 'replay',
    input: { taskId: 't-1' },
    requests: [jsonBody('/api/v1/tasks/t-1/replay', {})],
    responses: [ok(task({ status: 'SCHEDULED' }))],
    expect: { result: { taskId: 't-1', status: 'SCHEDULED' } },
  },
  {
    name: 'replay with every override',
    operation: 'replay',
    input: {
      taskId: 't-1',
      payload: { a: 2 },
      payloadVersion: 3,
      maxRetries: 0,
      delaySeconds: { $duration: 2.5 },
    },
    requests: [
      jsonBody('/api/v1/tasks/t-1/replay', {
        payload: { a: 2 },
        payloadVersion: 3,
        maxRetries: 0,
        delaySeconds: 2.5,
      }),
    ],
    responses: [ok(task({ payload: { a: 2 }, payloadVersion: 3, maxRetries: 0 }))],
    expect: { result: { payload: { a: 2 }, payloadVersion: 3, maxRetries: 0 } },
  },
  {
    name: 'replay at a time',
    operation: 'replay',
    input: { taskId: 't-1', executeAt: { $time: '2026-12-03T10:30:00Z' } },
    requests: [jsonBody('/api/v1/tasks/t-1/replay', { executeAt: '2026-12-03T10:30:00.000Z' })],
    responses: [ok(task())],
    expect: { result: { taskId: 't-1' } },
  },
  {
    name: 'list one page with every filter',
    operation: 'list',
    input: {
      status: 'FAILED',
      taskType: 'order.close',
      idPrefix: 'order-100',
      owner: 'billing',
      dueAfter: { $time: '2026-12-03T18:00:00+08:00' },
      dueBefore: { $time: '2026-12-03T11:00:00.250Z' },
      pageSize: 2,
      pageToken: 'abc=',
    },
    requests: [
      noBody('GET', '/api/v1/tasks', {
        status: 'FAILED',
        taskType: 'order.close',
        idPrefix: 'order-100',
        owner: 'billing',
        dueAfter: '2026-12-03T10:00:00.000Z',
        dueBefore: '2026-12-03T11:00:00.250Z',
        pageSize: '2',
        pageToken: 'abc=',
      }),
    ],
    responses: [ok({ tasks: [summary('t-1'), summary('t-2')], nextPageToken: 'next+/=' })],
    expect: { result: { tasks: [summary('t-1'), summary('t-2')], nextPageToken: 'next+/=' } },
  },
  {
    name: 'list with no filter sends no query',
    operation: 'list',
    input: {},
    requests: [noBody('GET', '/api/v1/tasks')],
    responses: [ok({ tasks: [], nextPageToken: null })],
    expect: { result: { tasks: [], nextPageToken: null } },
  },
  {
    name: 'listAll follows nextPageToken across two pages',
    operation: 'listAll',
    input: { status: 'FAILED', idPrefix: 'order-', pageSize: 2 },
    requests: [
      noBody('GET', '/api/v1/tasks', { status: 'FAILED', idPrefix: 'order-', pageSize: '2' }),
      noBody('GET', '/api/v1/tasks', {
        status: 'FAILED',
        idPrefix: 'order-',
        pageSize: '2',
        pageToken: 'p2 +/=',
      }),
    ],
    responses: [
      ok({ tasks: [summary('t-1'), summary('t-2')], nextPageToken: 'p2 +/=' }),
      ok({ tasks: [summary('t-3')], nextPageToken: null }),
    ],
    expect: {
      result: {
        tasks: [
          { taskId: 't-1' },
          { taskId: 't-2' },
          { taskId: 't-3', completedAt: '2026-12-03T10:31:00.000Z' },
        ],
      },
    },
  },
];

const unavailable = () => apiError(503, 'UNAVAILABLE', 'Temporal is unreachable');
const retries = [
  {
    name: 'create retried after 503 reuses the generated task id',
    operation: 'create',
    input: { ...baseInput, delaySeconds: { $duration: 5 } },
    requests: [
      createRequest({ ...baseInput, delaySeconds: 5, taskId: UUID }),
      createRequest({ ...baseInput, delaySeconds: 5, taskId: UUID }),
    ],
    responses: [unavailable(), ok(task(), 201)],
    expect: { result: { created: true } },
  },
  {
    name: 'retry on 429 honours Retry-After',
    operation: 'status',
    input: { taskId: 't-1' },
    requests: [noBody('GET', '/api/v1/tasks/t-1'), noBody('GET', '/api/v1/tasks/t-1')],
    responses: [
      apiError(429, 'RESOURCE_EXHAUSTED', 'slow down', undefined, { 'retry-after': '1' }),
      ok(task()),
    ],
    expect: { result: { taskId: 't-1' }, minElapsedMs: 900, maxElapsedMs: RETRY_AFTER_CEILING_MS },
  },
  {
    name: 'retry on 503 for cancel',
    operation: 'cancel',
    input: { taskId: 't-1' },
    requests: [noBody('POST', '/api/v1/tasks/t-1/cancel'), noBody('POST', '/api/v1/tasks/t-1/cancel')],
    responses: [unavailable(), ok(task({ status: 'CANCELLED' }))],
    expect: { result: { status: 'CANCELLED' } },
  },
  {
    name: '503 on every attempt: 4 attempts by default, then UNAVAILABLE',
    operation: 'status',
    input: { taskId: 't-1' },
    requests: Array.from({ length: 4 }, () => noBody('GET', '/api/v1/tasks/t-1')),
    responses: Array.from({ length: 4 }, unavailable),
    expect: { error: { code: 'UNAVAILABLE', status: 503 } },
  },
  {
    name: 'maxRetries 0 makes one attempt',
    operation: 'status',
    options: { maxRetries: 0 },
    input: { taskId: 't-1' },
    requests: [noBody('GET', '/api/v1/tasks/t-1')],
    responses: [unavailable()],
    expect: { error: { code: 'UNAVAILABLE', status: 503 } },
  },
  {
    name: 'retries decided by status: a 503 with a non-JSON body is retried and ends as UNKNOWN',
    operation: 'status',
    options: { maxRetries: 1 },
    input: { taskId: 't-1' },
    requests: [noBody('GET', '/api/v1/tasks/t-1'), noBody('GET', '/api/v1/tasks/t-1')],
    responses: [
      {
        status: 503,
        headers: { 'content-type': 'text/html' },
        bodyText: '<html>503 Service Unavailable</html>',
      },
      {
        status: 503,
        headers: { 'content-type': 'text/html' },
        bodyText: '<html>503 Service Unavailable</html>',
      },
    ],
    expect: { error: { code: 'UNKNOWN', status: 503 } },
  },
  ...[
    [400, 'INVALID_ARGUMENT', [{ field: 'taskType', reason: 'must match pattern' }]],
    [404, 'TASK_NOT_FOUND'],
    [409, 'TASK_CONFLICT'],
    [500, 'INTERNAL'],
  ].map(([status, code, details]) => ({
    name: `no retry on ${status} ${code as string}`,
    operation: 'create',
    input: { ...baseInput, taskId: 't-1', delaySeconds: { $duration: 1 } },
    requests: [createRequest({ ...baseInput, taskId: 't-1', delaySeconds: 1 })],
    responses: [
      apiError(status as number, code as string, 'refused', details as unknown[] | undefined, {
        'x-request-id': 'req-42',
      }),
    ],
    expect: {
      error: {
        code,
        status,
        requestId: 'req-42',
        ...(details
          ? { details: (details as Array<{ field: string }>).map(({ field }) => ({ field })) }
          : {}),
      },
    },
  })),
];

const BATCH_PATH = '/api/v1/tasks/batch';
const batchRequest = (tasks: unknown[], headers: Record<string, unknown> = {}) => ({
  method: 'POST',
  path: BATCH_PATH,
  query: {},
  headers: { 'content-type': 'application/json', ...headers },
  body: { tasks },
});
const item = (taskId: string, delay = 60) => ({ ...baseInput, taskId, delaySeconds: delay });
const itemInput = (taskId: string, delay = 60) => ({
  ...baseInput,
  taskId,
  delaySeconds: { $duration: delay },
});
const created = (index: number, taskId: string, overrides: Record<string, unknown> = {}) => ({
  index,
  status: 201,
  task: task({ taskId, ...overrides }),
});
const itemError = (index: number, status: number, code: string, message: string, details?: unknown[]) => ({
  index,
  status,
  error: { code, message, ...(details ? { details } : {}) },
});

/**
 * `createTasks`: input `{tasks: [create input, ...]}`; the result is an array, one entry per input
 * item in order: `{index, taskId, created, task}` or `{index, taskId, error: {code, status, details,
 * requestId}}` (the error a single create of that item raises; status 0 when refused before sending).
 */
const batch = [
  {
    name: 'batch: created, existing, per-item 409, 400 with details, 503 and an unknown code, in order',
    operation: 'createTasks',
    options: { apiKey: 'dts_k1_secret' },
    input: {
      tasks: [
        itemInput('b-0'),
        { ...baseInput, delaySeconds: { $duration: 1.5 } },
        itemInput('b-2'),
        { ...itemInput('b-3'), taskType: 'Bad Type' },
        itemInput('b-4'),
        itemInput('b-5'),
      ],
    },
    requests: [
      batchRequest(
        [
          item('b-0'),
          { ...baseInput, delaySeconds: 1.5, taskId: UUID },
          item('b-2'),
          { ...item('b-3'), taskType: 'Bad Type' },
          item('b-4'),
          item('b-5'),
        ],
        { authorization: 'Bearer dts_k1_secret', 'user-agent': { $match: 'userAgent' } },
      ),
    ],
    responses: [
      ok(
        {
          results: [
            created(0, 'b-0'),
            { index: 1, status: 200, task: task({ taskId: 'gen', executeAt: '2026-12-03T10:00:01.500Z' }) },
            itemError(2, 409, 'TASK_CONFLICT', 'task b-2 exists with another spec'),
            itemError(3, 400, 'INVALID_ARGUMENT', 'invalid task', [
              { field: 'taskType', reason: 'must match pattern' },
            ]),
            itemError(4, 503, 'UNAVAILABLE', 'Temporal is unreachable'),
            itemError(5, 422, 'QUOTA_EXCEEDED_FOR_TENANT', 'a code from a newer server'),
          ],
        },
        200,
        { 'x-request-id': 'req-7' },
      ),
    ],
    expect: {
      result: [
        { index: 0, taskId: 'b-0', created: true, task: task({ taskId: 'b-0' }) },
        { index: 1, created: false, task: { executeAt: '2026-12-03T10:00:01.500Z' } },
        { index: 2, taskId: 'b-2', error: { code: 'TASK_CONFLICT', status: 409, requestId: 'req-7' } },
        {
          index: 3,
          taskId: 'b-3',
          error: { code: 'INVALID_ARGUMENT', status: 400, details: [{ field: 'taskType' }] },
        },
        { index: 4, taskId: 'b-4', error: { code: 'UNAVAILABLE', status: 503 } },
        { index: 5, taskId: 'b-5', error: { code: 'QUOTA_EXCEEDED_FOR_TENANT', status: 422 } },
      ],
    },
  },
  {
    name: 'batch: items refused before sending get their error in place; the rest is sent and mapped back',
    operation: 'createTasks',
    input: {
      tasks: [
        {
          ...baseInput,
          taskId: 'b-0',
          payload: { a: { b: { $float: 'NaN' } } },
          delaySeconds: { $duration: 1 },
        },
        { ...baseInput, taskId: 'b-1', executeAt: { $time: '2026-12-03T18:30:00+08:00' } },
        { ...baseInput, taskId: 'b-2' },
        itemInput('b-3', 0.25),
      ],
    },
    requests: [
      batchRequest([
        { ...baseInput, taskId: 'b-1', executeAt: '2026-12-03T10:30:00.000Z' },
        item('b-3', 0.25),
      ]),
    ],
    responses: [ok({ results: [created(0, 'b-1'), created(1, 'b-3')] })],
    expect: {
      result: [
        {
          index: 0,
          taskId: 'b-0',
          error: {
            code: 'INVALID_ARGUMENT',
            status: 0,
            details: [{ field: 'payload.a.b', reason: R.notFinite }],
          },
        },
        {
          index: 1,
          taskId: 'b-1',
          created: true,
          task: { taskId: 'b-1', executeAt: '2026-12-03T10:30:00.000Z' },
        },
        {
          index: 2,
          taskId: 'b-2',
          error: {
            code: 'INVALID_ARGUMENT',
            status: 0,
            details: [{ field: 'delaySeconds', reason: R.exactlyOne }],
          },
        },
        { index: 3, taskId: 'b-3', created: true, task: { taskId: 'b-3' } },
      ],
    },
  },
  {
    name: 'batch: every item refused before sending makes no request',
    operation: 'createTasks',
    input: {
      tasks: [
        { ...baseInput, taskId: 'b-0', delaySeconds: { $duration: -1 } },
        {
          ...baseInput,
          taskId: 'b-1',
          payload: { n: { $int: '9007199254740992' } },
          delaySeconds: { $duration: 1 },
        },
      ],
    },
    requests: [],
    responses: [],
    expect: {
      result: [
        {
          index: 0,
          taskId: 'b-0',
          error: {
            code: 'INVALID_ARGUMENT',
            status: 0,
            details: [{ field: 'delaySeconds', reason: R.negative }],
          },
        },
        {
          index: 1,
          taskId: 'b-1',
          error: {
            code: 'INVALID_ARGUMENT',
            status: 0,
            details: [{ field: 'payload.n', reason: R.unsafeInteger }],
          },
        },
      ],
    },
  },
  {
    name: 'batch: whole request answered 503 is retried with the same generated task id',
    operation: 'createTasks',
    input: { tasks: [itemInput('b-0'), { ...baseInput, delaySeconds: { $duration: 5 } }] },
    requests: [
      batchRequest([item('b-0'), { ...baseInput, delaySeconds: 5, taskId: UUID }]),
      batchRequest([item('b-0'), { ...baseInput, delaySeconds: 5, taskId: UUID }]),
    ],
    responses: [
      unavailable(),
      ok({ results: [{ index: 0, status: 200, task: task({ taskId: 'b-0' }) }, created(1, 'gen')] }),
    ],
    expect: {
      result: [
        { index: 0, taskId: 'b-0', created: false },
        { index: 1, created: true },
      ],
    },
  },
  {
    name: 'batch: whole request 429 honours Retry-After',
    operation: 'createTasks',
    input: { tasks: [itemInput('b-0')] },
    requests: [batchRequest([item('b-0')]), batchRequest([item('b-0')])],
    responses: [
      apiError(429, 'RESOURCE_EXHAUSTED', 'slow down', undefined, { 'retry-after': '1' }),
      ok({ results: [created(0, 'b-0')] }),
    ],
    expect: {
      result: [{ index: 0, taskId: 'b-0', created: true }],
      minElapsedMs: 900,
      maxElapsedMs: RETRY_AFTER_CEILING_MS,
    },
  },
  {
    name: 'batch: 503 on every attempt raises UNAVAILABLE after 4 attempts',
    operation: 'createTasks',
    input: { tasks: [itemInput('b-0')] },
    requests: Array.from({ length: 4 }, () => batchRequest([item('b-0')])),
    responses: Array.from({ length: 4 }, unavailable),
    expect: { error: { code: 'UNAVAILABLE', status: 503 } },
  },
  ...[
    [401, 'UNAUTHENTICATED', 'missing or invalid API key'],
    [403, 'PERMISSION_DENIED', 'the key lacks scope tasks:write'],
    [500, 'INTERNAL', 'internal error'],
  ].map(([status, code, message]) => ({
    name: `batch: whole request ${status as number} ${code as string} raises, not retried`,
    operation: 'createTasks',
    input: { tasks: [itemInput('b-0'), itemInput('b-1')] },
    requests: [batchRequest([item('b-0'), item('b-1')])],
    responses: [
      apiError(status as number, code as string, message as string, undefined, { 'x-request-id': 'req-9' }),
    ],
    expect: { error: { code, status, requestId: 'req-9' } },
  })),
  {
    name: 'batch: no client-side count limit; the server refuses an empty list for the whole request',
    operation: 'createTasks',
    input: { tasks: [] },
    requests: [batchRequest([])],
    responses: [
      apiError(400, 'INVALID_ARGUMENT', 'tasks must hold 1 to 100 items', [
        { field: 'tasks', reason: 'must NOT have fewer than 1 items' },
      ]),
    ],
    expect: { error: { code: 'INVALID_ARGUMENT', status: 400, details: [{ field: 'tasks' }] } },
  },
];

const errors = [
  {
    name: 'an unknown error code passes through unchanged',
    operation: 'status',
    input: { taskId: 't-1' },
    requests: [noBody('GET', '/api/v1/tasks/t-1')],
    responses: [
      apiError(422, 'QUOTA_EXCEEDED_FOR_TENANT', 'a code from a newer server', [
        { field: 'tenant', reason: 'over quota' },
      ]),
    ],
    expect: { error: { code: 'QUOTA_EXCEEDED_FOR_TENANT', status: 422, details: [{ field: 'tenant' }] } },
  },
  {
    name: 'a non-JSON error body maps to UNKNOWN with the status',
    operation: 'status',
    input: { taskId: 't-1' },
    requests: [noBody('GET', '/api/v1/tasks/t-1')],
    responses: [
      {
        status: 502,
        headers: { 'content-type': 'text/html' },
        bodyText: '<html><body>Bad Gateway</body></html>',
      },
    ],
    expect: { error: { code: 'UNKNOWN', status: 502 } },
  },
  {
    name: 'a JSON error body without the error envelope maps to UNKNOWN',
    operation: 'status',
    input: { taskId: 't-1' },
    requests: [noBody('GET', '/api/v1/tasks/t-1')],
    responses: [ok({ message: 'not the API' }, 404)],
    expect: { error: { code: 'UNKNOWN', status: 404 } },
  },
  {
    name: 'UNAUTHENTICATED is not retried',
    operation: 'list',
    options: { apiKey: 'dts_k1_wrong' },
    input: {},
    requests: [{ ...noBody('GET', '/api/v1/tasks'), headers: { authorization: 'Bearer dts_k1_wrong' } }],
    responses: [apiError(401, 'UNAUTHENTICATED', 'missing or invalid API key')],
    expect: { error: { code: 'UNAUTHENTICATED', status: 401 } },
  },
  {
    name: 'PERMISSION_DENIED is not retried',
    operation: 'cancel',
    input: { taskId: 't-1' },
    requests: [noBody('POST', '/api/v1/tasks/t-1/cancel')],
    responses: [apiError(403, 'PERMISSION_DENIED', 'not your task')],
    expect: { error: { code: 'PERMISSION_DENIED', status: 403 } },
  },
  {
    name: 'FAILED_PRECONDITION on reschedule keeps its details',
    operation: 'reschedule',
    input: { taskId: 't-1', delaySeconds: { $duration: 10 } },
    requests: [jsonBody('/api/v1/tasks/t-1/reschedule', { delaySeconds: 10 })],
    responses: [
      apiError(409, 'FAILED_PRECONDITION', 'only a SCHEDULED task can be rescheduled', [
        { field: 'status', reason: 'is SUCCEEDED' },
      ]),
    ],
    expect: { error: { code: 'FAILED_PRECONDITION', status: 409, details: [{ field: 'status' }] } },
  },
];

await write('client', 'create', create);
await write('client', 'batch', batch);
await write('client', 'checks', checks);
await write('client', 'operations', operations);
await write('client', 'retries', retries);
await write('client', 'errors', errors);

// ---------------------------------------------------------------- callback vectors

await write('callbacks', 'verify', verifyCases);
await write('callbacks', 'receiver', receiverCases);
