/** Vectors of `createTasks`: one batch request, one result per item in order. */
import {
  UUID,
  RETRY_AFTER_CEILING_MS,
  task,
  ok,
  apiError,
  baseInput,
  unavailable,
  REASONS,
} from './common.js';

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
export const batch = [
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
            details: [{ field: 'payload.a.b', reason: REASONS.notFinite }],
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
            details: [{ field: 'delaySeconds', reason: REASONS.exactlyOne }],
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
            details: [{ field: 'delaySeconds', reason: REASONS.negative }],
          },
        },
        {
          index: 1,
          taskId: 'b-1',
          error: {
            code: 'INVALID_ARGUMENT',
            status: 0,
            details: [{ field: 'payload.n', reason: REASONS.unsafeInteger }],
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
