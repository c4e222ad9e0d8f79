/**
 * The one fingerprint recipe (src/tasks/fingerprint.ts): which fields of a task input it covers, and
 * why the others are left out. The table is the test: a field moved between the two lists fails it.
 */
import { describe, expect, it } from 'vitest';
import { FINGERPRINT_FIELDS, fingerprintOf } from '../../../src/tasks/fingerprint.js';
import type { TaskSpec } from '../../../src/shared/task.js';

const spec: TaskSpec = {
  taskId: 'order-1',
  owner: 'orders',
  taskType: 'email',
  payload: { to: 'a@example.com', n: [1, 2] },
  payloadVersion: 1,
  executeAt: '2027-01-01T00:00:00.000Z',
  callbackUrl: 'https://hooks.example.com/x',
  maxRetries: 3,
  timeoutMs: 5000,
  traceId: null,
  priority: 3,
  createdAt: '2026-12-04T00:00:00.000Z',
  callbackTaskQueue: 'q.callbacks.email',
  retryPolicy: { initialIntervalMs: 1000, multiplier: 2, maxIntervalMs: 60_000, immediateRetries: 0 },
  localCallback: true,
  idempotencyKey: 'orders/order-1',
};

/** A different value for each field of the input. */
const changed: { [K in keyof TaskSpec]-?: TaskSpec[K] } = {
  taskId: 'order-2',
  owner: 'billing',
  taskType: 'sms',
  payload: { to: 'b@example.com' },
  payloadVersion: 2,
  executeAt: '2027-01-02T00:00:00.000Z',
  callbackUrl: 'https://hooks.example.com/y',
  delivery: { mode: 'pull', queue: 'sms', leaseSeconds: 30 },
  maxRetries: 4,
  timeoutMs: 6000,
  traceId: 'trace-1',
  priority: 1,
  createdAt: '2026-12-05T00:00:00.000Z',
  callbackTaskQueue: 'q.callbacks.sms',
  deliveryTaskQueue: 'q.pull/billing/sms',
  retryPolicy: { initialIntervalMs: 2000, multiplier: 2, maxIntervalMs: 60_000, immediateRetries: 0 },
  localCallback: false,
  idempotencyKey: 'billing/order-2',
  schedule: { scheduleId: 'nightly' },
};

const covered = [
  'taskType',
  'payload',
  'payloadVersion',
  'executeAt',
  'callbackUrl',
  'delivery',
  'maxRetries',
  'timeoutMs',
  'traceId',
  'priority',
];
const notCovered = [
  'taskId',
  'owner',
  'createdAt',
  'idempotencyKey',
  'callbackTaskQueue',
  'deliveryTaskQueue',
  'localCallback',
  'retryPolicy',
  'schedule',
];

describe('the fingerprint of a create', () => {
  it('places every field of the input, covered or with the reason it is not', () => {
    expect(Object.keys(FINGERPRINT_FIELDS).sort()).toEqual([...covered, ...notCovered].sort());
    for (const field of notCovered) expect(FINGERPRINT_FIELDS[field as keyof TaskSpec]).toMatch(/\w+ \w+/);
  });

  it.each(covered)('changes with %s (what the caller asked for)', (field) => {
    expect(fingerprintOf({ ...spec, [field]: changed[field as keyof TaskSpec] })).not.toBe(
      fingerprintOf(spec),
    );
  });

  it.each(notCovered)('does not change with %s', (field) => {
    expect(fingerprintOf({ ...spec, [field]: changed[field as keyof TaskSpec] })).toBe(fingerprintOf(spec));
  });

  it('compares the time as asked: the same delay is the same task, whatever executeAt it computed', () => {
    const later = { ...spec, executeAt: changed.executeAt };
    expect(fingerprintOf(later, { delaySeconds: 60 })).toBe(fingerprintOf(spec, { delaySeconds: 60 }));
    expect(fingerprintOf(spec, { delaySeconds: 60 })).not.toBe(fingerprintOf(spec));
  });

  it('is the value the tasks already stored carry (their idempotent repeats still match)', () => {
    // Computed by the recipe before it was one function; a change here answers 409 to old repeats.
    expect(fingerprintOf(spec, { delaySeconds: 60 })).toBe(
      '1d3018bdf783d68b590e83cd976a16d4cb2e2ba192eafce5a4e52b61c2ff3017',
    );
    expect(fingerprintOf(spec)).toBe('26cbef002f4c4876f5e70236a4cefa8d94523df78dd4186ca7a9f5e5b10c35ad');
  });
});
