/**
 * The client verbs of pull delivery (`lease`, `ack`, `nack`, `extend`, `release`): requests and
 * answers in the format of `client/*.json` (conformance/README.md), written to wire-vectors.json.
 */
import { JSON_HEADERS } from '../client-vectors/common.js';

const AUTH = { authorization: 'Bearer dts_k1_secret', 'content-type': 'application/json' };
const OPTIONS = { apiKey: 'dts_k1_secret', maxRetries: 0 };

/** One lease as the API answers it. */
export function wireLease(token: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    leaseToken: token,
    leaseExpiresAt: '2026-12-05T10:01:00.000Z',
    task: {
      taskId: 'order-1-close',
      taskType: 'order.close',
      queue: 'orders',
      payload: { orderId: '1' },
      payloadVersion: 1,
      executeAt: '2026-12-05T09:59:00.000Z',
      attempt: 1,
      idempotencyKey: 'idem-order-1-close',
      traceId: null,
      ...overrides,
    },
  };
}

function post(path: string, body: unknown) {
  return { method: 'POST', path, query: {}, headers: AUTH, body };
}

function ok(body: unknown) {
  return { status: 200, headers: JSON_HEADERS, body };
}

function refused(status: number, code: string, field?: string) {
  const details = field ? [{ field, reason: 'is malformed' }] : [];
  return { status, headers: JSON_HEADERS, body: { error: { code, message: code, details } } };
}

type Verb = 'ack' | 'nack' | 'extend' | 'release';

/** The same refusal for each verb that takes a token. */
function tokenErrors(verb: Verb, body: Record<string, unknown>) {
  const input = { leaseToken: 'lt_1', ...(verb === 'nack' ? { retryable: true } : {}) };
  const request = post(`/api/v1/leases/${verb}`, { leaseToken: 'lt_1', ...body });
  const cases: Array<[string, number, string, string | undefined]> = [
    ['a lease the server does not know', 404, 'LEASE_NOT_FOUND', undefined],
    ['an expired lease', 409, 'LEASE_EXPIRED', undefined],
    ['a task cancelled while leased', 409, 'TASK_CANCELLED', undefined],
    ['a tampered token', 400, 'INVALID_ARGUMENT', 'leaseToken'],
  ];
  return cases.map(([what, status, code, field]) => ({
    name: `${verb} of ${what} raises ${code}`,
    operation: verb,
    options: OPTIONS,
    input,
    requests: [request],
    responses: [refused(status, code, field)],
    expect: { error: { code, status, ...(field ? { details: [{ field }] } : {}) } },
  }));
}

export const wire = [
  {
    name: 'lease sends only the fields given and returns no lease after the wait',
    operation: 'lease',
    options: OPTIONS,
    input: { queues: ['orders'] },
    requests: [post('/api/v1/leases', { queues: ['orders'] })],
    responses: [ok({ leases: [] })],
    expect: { result: [] },
  },
  {
    name: 'lease with every field returns the leases with their tasks',
    operation: 'lease',
    options: OPTIONS,
    input: { queues: ['orders', 'invoices'], max: 2, waitSeconds: 5, workerIdentity: 'host-1/4242' },
    requests: [
      post('/api/v1/leases', {
        queues: ['orders', 'invoices'],
        max: 2,
        waitSeconds: 5,
        workerIdentity: 'host-1/4242',
      }),
    ],
    responses: [
      ok({
        leases: [
          wireLease('lt_1'),
          wireLease('lt_2', {
            taskId: 'nightly-2026-12-05T10:00:00Z',
            taskType: 'report.nightly',
            queue: 'invoices',
            payload: { n: 2 },
            payloadVersion: 3,
            attempt: 4,
            idempotencyKey: 'idem-nightly',
            traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
            schedule: { scheduleId: 'nightly', scheduledAt: '2026-12-05T10:00:00.000Z' },
          }),
        ],
      }),
    ],
    expect: {
      result: [
        {
          leaseToken: 'lt_1',
          leaseExpiresAt: '2026-12-05T10:01:00.000Z',
          task: {
            taskId: 'order-1-close',
            taskType: 'order.close',
            queue: 'orders',
            payload: { orderId: '1' },
            payloadVersion: 1,
            executeAt: '2026-12-05T09:59:00.000Z',
            attempt: 1,
            idempotencyKey: 'idem-order-1-close',
            traceId: null,
            schedule: null,
          },
        },
        {
          leaseToken: 'lt_2',
          task: {
            taskId: 'nightly-2026-12-05T10:00:00Z',
            taskType: 'report.nightly',
            queue: 'invoices',
            payload: { n: 2 },
            payloadVersion: 3,
            attempt: 4,
            idempotencyKey: 'idem-nightly',
            traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
            schedule: { scheduleId: 'nightly', scheduledAt: '2026-12-05T10:00:00.000Z' },
          },
        },
      ],
    },
  },
  {
    name: 'lease without the tasks:lease scope raises PERMISSION_DENIED',
    operation: 'lease',
    options: OPTIONS,
    input: { queues: ['orders'], waitSeconds: 0 },
    requests: [post('/api/v1/leases', { queues: ['orders'], waitSeconds: 0 })],
    responses: [refused(403, 'PERMISSION_DENIED')],
    expect: { error: { code: 'PERMISSION_DENIED', status: 403 } },
  },
  {
    name: 'lease is retried on 503 like every call',
    operation: 'lease',
    options: { apiKey: 'dts_k1_secret', maxRetries: 1 },
    input: { queues: ['orders'], waitSeconds: 0 },
    requests: [
      post('/api/v1/leases', { queues: ['orders'], waitSeconds: 0 }),
      post('/api/v1/leases', { queues: ['orders'], waitSeconds: 0 }),
    ],
    responses: [refused(503, 'UNAVAILABLE'), ok({ leases: [] })],
    expect: { result: [] },
  },
  {
    name: 'ack answers the task SUCCEEDED',
    operation: 'ack',
    options: OPTIONS,
    input: { leaseToken: 'lt_1' },
    requests: [post('/api/v1/leases/ack', { leaseToken: 'lt_1' })],
    responses: [ok({ taskId: 'order-1-close', status: 'SUCCEEDED' })],
    expect: { result: { taskId: 'order-1-close', status: 'SUCCEEDED' } },
  },
  {
    name: 'nack with the defaults sends the token only',
    operation: 'nack',
    options: OPTIONS,
    input: { leaseToken: 'lt_1' },
    requests: [post('/api/v1/leases/nack', { leaseToken: 'lt_1' })],
    responses: [ok({ taskId: 'order-1-close', status: 'RUNNING' })],
    expect: { result: { taskId: 'order-1-close', status: 'RUNNING' } },
  },
  {
    name: 'nack not retryable with a reason dead-letters the task',
    operation: 'nack',
    options: OPTIONS,
    input: { leaseToken: 'lt_1', retryable: false, reason: 'order 1 does not exist' },
    requests: [
      post('/api/v1/leases/nack', { leaseToken: 'lt_1', retryable: false, reason: 'order 1 does not exist' }),
    ],
    responses: [ok({ taskId: 'order-1-close', status: 'FAILED' })],
    expect: { result: { taskId: 'order-1-close', status: 'FAILED' } },
  },
  {
    name: 'extend answers the new expiry',
    operation: 'extend',
    options: OPTIONS,
    input: { leaseToken: 'lt_1' },
    requests: [post('/api/v1/leases/extend', { leaseToken: 'lt_1' })],
    responses: [ok({ leaseExpiresAt: '2026-12-05T10:02:00.000Z' })],
    expect: { result: { leaseExpiresAt: '2026-12-05T10:02:00.000Z' } },
  },
  {
    name: 'release hands the task back RUNNING',
    operation: 'release',
    options: OPTIONS,
    input: { leaseToken: 'lt_1' },
    requests: [post('/api/v1/leases/release', { leaseToken: 'lt_1' })],
    responses: [ok({ taskId: 'order-1-close', status: 'RUNNING' })],
    expect: { result: { taskId: 'order-1-close', status: 'RUNNING' } },
  },
  ...tokenErrors('ack', {}),
  ...tokenErrors('nack', { retryable: true }),
  ...tokenErrors('extend', {}),
  ...tokenErrors('release', {}),
];
