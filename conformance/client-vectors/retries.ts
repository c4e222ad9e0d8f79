/** Vectors of retries: what each SDK retries, how long it waits (Retry-After, backoff), and what it never retries. */
import {
  UUID,
  RETRY_AFTER_CEILING_MS,
  task,
  ok,
  apiError,
  createRequest,
  baseInput,
  noBody,
  unavailable,
} from './common.js';

export const retries = [
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
