/** Vectors of every operation but create: the request each SDK sends and the result it returns. */
import { task, summary, ok, apiError, noBody, jsonBody } from './common.js';

export const operations = [
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
