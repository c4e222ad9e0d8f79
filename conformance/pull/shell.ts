/**
 * The pull worker shell's behaviour (`PullWorker`), as scripts that each SDK's runner plays against
 * a fake server speaking the wire: written to shell-vectors.json; the format is in README.md here.
 */

/** A lease of the script: its token, its task, and how long it runs from when the fake answers. */
function lease(token: string, overrides: Record<string, unknown> = {}, leaseInMs = 60_000) {
  return {
    leaseToken: token,
    leaseExpiresAt: { $inMs: leaseInMs },
    task: {
      taskId: `task-${token}`,
      taskType: 'order.close',
      queue: 'order.close',
      payload: { orderId: token },
      payloadVersion: 1,
      executeAt: '2026-12-05T09:59:00.000Z',
      attempt: 1,
      idempotencyKey: `idem-${token}`,
      traceId: null,
      ...overrides,
    },
  };
}

function leaseBody(max: number, queues = ['order.close']) {
  return { queues, max, waitSeconds: 20, workerIdentity: 'worker-1' };
}

const worker = (overrides: Record<string, unknown> = {}) => ({
  handlers: ['order.close'],
  concurrency: 1,
  workerIdentity: 'worker-1',
  ...overrides,
});

const stop = [{ op: 'shutdown', timeoutMs: 2000 }, { op: 'expectStopped' }];
const t1 = lease('t1');

export const shell = [
  {
    name: 'a handler that returns is acked, and the freed slot leases again',
    worker: worker({ concurrency: 2 }),
    steps: [
      { op: 'expectLease', body: leaseBody(2), answer: [t1] },
      {
        op: 'expectHandler',
        leaseToken: 't1',
        task: {
          taskId: 'task-t1',
          taskType: 'order.close',
          queue: 'order.close',
          payload: { orderId: 't1' },
          attempt: 1,
          idempotencyKey: 'idem-t1',
          schedule: null,
        },
      },
      { op: 'expectLease', body: leaseBody(1) },
      { op: 'finish', leaseToken: 't1', outcome: 'return' },
      { op: 'expectCall', verb: 'ack', body: { leaseToken: 't1' } },
      ...stop,
    ],
    expect: { handlerCalls: 1 },
  },
  {
    name: 'a handler that throws is nacked retryable with its message as the reason',
    worker: worker(),
    steps: [
      { op: 'expectLease', body: leaseBody(1), answer: [t1] },
      { op: 'expectHandler', leaseToken: 't1' },
      { op: 'finish', leaseToken: 't1', outcome: 'throw', message: 'database unreachable' },
      {
        op: 'expectCall',
        verb: 'nack',
        body: { leaseToken: 't1', retryable: true, reason: 'database unreachable' },
      },
      { op: 'expectLease', body: leaseBody(1) },
      ...stop,
    ],
    expect: { handlerCalls: 1 },
  },
  {
    name: 'a PermanentError is nacked not retryable',
    worker: worker(),
    steps: [
      { op: 'expectLease', body: leaseBody(1), answer: [t1] },
      { op: 'expectHandler', leaseToken: 't1' },
      { op: 'finish', leaseToken: 't1', outcome: 'permanent', message: 'order t1 does not exist' },
      {
        op: 'expectCall',
        verb: 'nack',
        body: { leaseToken: 't1', retryable: false, reason: 'order t1 does not exist' },
      },
      ...stop,
    ],
    expect: { handlerCalls: 1 },
  },
  {
    name: 'a task type without a handler is nacked not retryable and runs nothing',
    worker: worker({ queues: ['orders'] }),
    steps: [
      {
        op: 'expectLease',
        body: leaseBody(1, ['orders']),
        answer: [lease('t1', { taskType: 'invoice.send', queue: 'orders' })],
      },
      {
        op: 'expectCall',
        verb: 'nack',
        body: { leaseToken: 't1', retryable: false, reason: 'no handler for task type' },
      },
      ...stop,
    ],
    expect: { handlerCalls: 0 },
  },
  {
    name: 'queues default to the registered types in order, max to the concurrency, the identity to host/pid',
    worker: { handlers: ['order.close', 'invoice.send'] },
    steps: [
      {
        op: 'expectLease',
        body: {
          queues: ['order.close', 'invoice.send'],
          max: 10,
          waitSeconds: 20,
          workerIdentity: { $match: 'nonEmptyString' },
        },
      },
      ...stop,
    ],
    expect: { handlerCalls: 0 },
  },
  {
    name: 'a running handler is extended every third of the lease, then acked',
    worker: worker(),
    steps: [
      { op: 'expectLease', body: leaseBody(1), answer: [lease('t1', {}, 900)] },
      { op: 'expectHandler', leaseToken: 't1' },
      { op: 'expectCall', verb: 'extend', body: { leaseToken: 't1' } },
      { op: 'expectCall', verb: 'extend', body: { leaseToken: 't1' } },
      { op: 'finish', leaseToken: 't1', outcome: 'return' },
      { op: 'expectCall', verb: 'ack', body: { leaseToken: 't1' } },
      { op: 'expectLease', body: leaseBody(1) },
      { op: 'expectIdle', ms: 600 },
      ...stop,
    ],
    expect: { handlerCalls: 1 },
  },
  {
    name: 'an extend answered LEASE_EXPIRED stops extending and the lost lease is neither acked nor nacked',
    worker: worker(),
    steps: [
      { op: 'expectLease', body: leaseBody(1), answer: [lease('t1', {}, 900)] },
      { op: 'expectHandler', leaseToken: 't1' },
      {
        op: 'expectCall',
        verb: 'extend',
        body: { leaseToken: 't1' },
        answer: { status: 409, code: 'LEASE_EXPIRED' },
      },
      { op: 'expectIdle', ms: 700 },
      { op: 'finish', leaseToken: 't1', outcome: 'return' },
      { op: 'expectLease', body: leaseBody(1) },
      ...stop,
    ],
    expect: { handlerCalls: 1 },
  },
  {
    name: 'an ack answered LEASE_EXPIRED is reported and the worker goes on leasing',
    worker: worker(),
    steps: [
      { op: 'expectLease', body: leaseBody(1), answer: [t1] },
      { op: 'expectHandler', leaseToken: 't1' },
      { op: 'finish', leaseToken: 't1', outcome: 'return' },
      {
        op: 'expectCall',
        verb: 'ack',
        body: { leaseToken: 't1' },
        answer: { status: 409, code: 'LEASE_EXPIRED' },
      },
      { op: 'expectLease', body: leaseBody(1) },
      ...stop,
    ],
    expect: { handlerCalls: 1 },
  },
  {
    name: 'concurrency bounds the handlers in flight and the max asked for',
    worker: worker({ concurrency: 2 }),
    steps: [
      { op: 'expectLease', body: leaseBody(2), answer: [t1, lease('t2')] },
      { op: 'expectHandler', leaseToken: 't1' },
      { op: 'expectHandler', leaseToken: 't2' },
      { op: 'expectIdle', ms: 300 },
      { op: 'finish', leaseToken: 't1', outcome: 'return' },
      { op: 'expectCall', verb: 'ack', body: { leaseToken: 't1' } },
      { op: 'expectLease', body: leaseBody(1), answer: [lease('t3')] },
      { op: 'expectHandler', leaseToken: 't3' },
      { op: 'expectIdle', ms: 300 },
      { op: 'finish', leaseToken: 't2', outcome: 'return' },
      { op: 'finish', leaseToken: 't3', outcome: 'return' },
      { op: 'expectCall', verb: 'ack', body: { leaseToken: 't2' } },
      { op: 'expectCall', verb: 'ack', body: { leaseToken: 't3' } },
      ...stop,
    ],
    expect: { handlerCalls: 3 },
  },
  {
    name: 'a failed lease call is retried after a backoff',
    worker: worker(),
    steps: [
      { op: 'expectLease', body: leaseBody(1), answer: { status: 500, code: 'INTERNAL' } },
      { op: 'expectLease', body: leaseBody(1), answer: [t1] },
      { op: 'expectHandler', leaseToken: 't1' },
      { op: 'finish', leaseToken: 't1', outcome: 'return' },
      { op: 'expectCall', verb: 'ack', body: { leaseToken: 't1' } },
      ...stop,
    ],
    expect: { handlerCalls: 1 },
  },
  {
    name: 'shutdown stops leasing and waits for the handler in flight, which is acked',
    worker: worker(),
    steps: [
      { op: 'expectLease', body: leaseBody(1), answer: [t1] },
      { op: 'expectHandler', leaseToken: 't1' },
      { op: 'shutdown', timeoutMs: 5000 },
      { op: 'expectIdle', ms: 300 },
      { op: 'finish', leaseToken: 't1', outcome: 'return' },
      { op: 'expectCall', verb: 'ack', body: { leaseToken: 't1' } },
      { op: 'expectStopped' },
      { op: 'expectIdle', ms: 300 },
    ],
    expect: { handlerCalls: 1 },
  },
  {
    name: 'shutdown releases what still runs after the timeout, and never acks it',
    worker: worker(),
    steps: [
      { op: 'expectLease', body: leaseBody(1), answer: [t1] },
      { op: 'expectHandler', leaseToken: 't1' },
      { op: 'shutdown', timeoutMs: 300 },
      { op: 'expectCall', verb: 'release', body: { leaseToken: 't1' } },
      { op: 'expectStopped' },
      { op: 'finish', leaseToken: 't1', outcome: 'return' },
      { op: 'expectIdle', ms: 300 },
    ],
    expect: { handlerCalls: 1 },
  },
  {
    name: 'shutdown ends a pending long poll',
    worker: worker(),
    steps: [{ op: 'expectLease', body: leaseBody(1) }, ...stop, { op: 'expectIdle', ms: 300 }],
    expect: { handlerCalls: 0 },
  },
  {
    name: 'with a store, a key done before is acked without running the handler',
    worker: worker({ store: { 'idem-t1': 'DONE' } }),
    steps: [
      { op: 'expectLease', body: leaseBody(1), answer: [t1] },
      { op: 'expectCall', verb: 'ack', body: { leaseToken: 't1' } },
      ...stop,
    ],
    expect: { handlerCalls: 0 },
  },
  {
    name: 'with a store, a key another holder claimed is released without running the handler',
    worker: worker({ store: { 'idem-t1': 'IN_PROGRESS' } }),
    steps: [
      { op: 'expectLease', body: leaseBody(1), answer: [t1] },
      { op: 'expectCall', verb: 'release', body: { leaseToken: 't1' } },
      ...stop,
    ],
    expect: { handlerCalls: 0 },
  },
  {
    name: 'with a store, a handled key is completed before the ack',
    worker: worker({ store: {} }),
    steps: [
      { op: 'expectLease', body: leaseBody(1), answer: [t1] },
      { op: 'expectHandler', leaseToken: 't1' },
      { op: 'claim', key: 'idem-t1', expect: 'IN_PROGRESS' },
      { op: 'finish', leaseToken: 't1', outcome: 'return' },
      { op: 'expectCall', verb: 'ack', body: { leaseToken: 't1' } },
      { op: 'claim', key: 'idem-t1', expect: 'DONE' },
      ...stop,
    ],
    expect: { handlerCalls: 1 },
  },
  {
    name: 'with a store, a handler that throws releases its claim so the retry runs',
    worker: worker({ store: {} }),
    steps: [
      { op: 'expectLease', body: leaseBody(1), answer: [t1] },
      { op: 'expectHandler', leaseToken: 't1' },
      { op: 'finish', leaseToken: 't1', outcome: 'throw', message: 'boom' },
      { op: 'expectCall', verb: 'nack', body: { leaseToken: 't1', retryable: true, reason: 'boom' } },
      { op: 'claim', key: 'idem-t1', expect: 'CLAIMED' },
      ...stop,
    ],
    expect: { handlerCalls: 1 },
  },
];
