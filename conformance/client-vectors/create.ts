/** Vectors of `create`: what each SDK sends for a create, and what it makes of the answer. */
import { UUID, task, ok, createRequest, baseInput } from './common.js';

export const create = [
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
