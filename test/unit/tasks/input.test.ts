import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/errors/catalog.js';
import {
  buildTaskSpec,
  checkCallbackUrl,
  checkPayload,
  depthOf,
  parseRfc3339,
  resolveWhen,
} from '../../../src/tasks/input.js';
import { loadConfig } from '../../../src/config/environment.js';
import { Policies } from '../../../src/task-types/policies.js';

const limits = loadConfig({}).limits;
const now = Date.parse('2026-12-02T10:00:00.000Z');
const policy = new Policies().forType('any.type')!;

function failure(fn: () => unknown): { code: string; status: number; fields: string[] } {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError)
      return { code: err.code, status: err.status, fields: (err.details ?? []).map((d) => d.field) };
    throw err;
  }
  throw new Error('expected an ApiError');
}

describe('parseRfc3339', () => {
  it.each([
    { input: '2026-12-02T10:00:00Z', expected: '2026-12-02T10:00:00.000Z' },
    { input: '2026-12-02T18:30:00+08:00', expected: '2026-12-02T10:30:00.000Z' },
    { input: '2026-12-02T05:00:00.5-05:00', expected: '2026-12-02T10:00:00.500Z' },
    { input: '2026-12-02t10:00:00.123456789z', expected: '2026-12-02T10:00:00.123Z' },
    { input: '2028-02-29T00:00:00Z', expected: '2028-02-29T00:00:00.000Z' },
    // Years 0-99 are not 1900-1999 (Date.UTC's reading): the edges of that range and around it.
    { input: '0000-01-01T00:00:00Z', expected: '0000-01-01T00:00:00.000Z' },
    { input: '0001-01-01T00:00:00Z', expected: '0001-01-01T00:00:00.000Z' },
    { input: '0099-01-01T00:00:00Z', expected: '0099-01-01T00:00:00.000Z' },
    { input: '0099-12-31T23:59:59Z', expected: '0099-12-31T23:59:59.000Z' },
    { input: '0100-01-01T00:00:00Z', expected: '0100-01-01T00:00:00.000Z' },
    { input: '0000-01-01T00:30:00+01:00', expected: '-000001-12-31T23:30:00.000Z' },
    { input: '0004-02-29T00:00:00Z', expected: '0004-02-29T00:00:00.000Z' },
    { input: '1969-12-31T23:59:59Z', expected: '1969-12-31T23:59:59.000Z' },
    { input: '9999-12-31T23:59:59.999Z', expected: '9999-12-31T23:59:59.999Z' },
  ])('reads $input', ({ input, expected }) => {
    expect(new Date(parseRfc3339(input)!).toISOString()).toBe(expected);
  });

  it.each([
    '2026-12-02T10:00:00',
    '2026-12-02 10:00:00Z',
    '2026-02-30T00:00:00Z',
    '2026-13-01T00:00:00Z',
    '2026-12-02T24:00:00Z',
    '2026-12-02T10:00:00+25:00',
    '0100-02-29T00:00:00Z',
    '0099-02-29T00:00:00Z',
    '99-01-01T00:00:00Z',
    '1733133600',
    'tomorrow',
  ])('rejects %s', (input) => {
    expect(parseRfc3339(input)).toBeUndefined();
  });
});

describe('resolveWhen', () => {
  it.each([
    { when: { delaySeconds: 0 }, expected: now },
    { when: { delaySeconds: 1.5 }, expected: now + 1500 },
    { when: { executeAt: '2026-12-02T10:00:00Z' }, expected: now },
    { when: { executeAt: '2026-12-02T09:56:00Z' }, expected: now - 240_000 },
  ])('resolves $when', ({ when, expected }) => {
    expect(resolveWhen(when, now, limits)).toBe(expected);
  });

  it.each([
    { name: 'neither', when: {}, fields: ['delaySeconds'] },
    {
      name: 'both',
      when: { delaySeconds: 1, executeAt: '2026-12-02T10:00:00Z' },
      fields: ['delaySeconds', 'executeAt'],
    },
    { name: 'no offset', when: { executeAt: '2026-12-02T10:00:00' }, fields: ['executeAt'] },
    { name: 'beyond the horizon', when: { executeAt: '2027-03-03T10:00:01Z' }, fields: ['executeAt'] },
    { name: 'milliseconds as seconds', when: { delaySeconds: 1_800_000_000 }, fields: ['delaySeconds'] },
    { name: 'too far in the past', when: { executeAt: '2026-12-02T09:54:59Z' }, fields: ['executeAt'] },
  ])('rejects $name with INVALID_ARGUMENT', ({ when, fields }) => {
    expect(failure(() => resolveWhen(when, now, limits))).toEqual({
      code: 'INVALID_ARGUMENT',
      status: 400,
      fields,
    });
  });

  it('allows neither for a replay, meaning now', () => {
    expect(resolveWhen({}, now, limits, true)).toBe(now);
  });
});

describe('payload limits', () => {
  it('measures depth with the payload as level 1', () => {
    expect(depthOf({})).toBe(1);
    expect(depthOf({ a: 1 })).toBe(1);
    expect(depthOf({ a: { b: [1] } })).toBe(3);
  });

  it('accepts 5 levels and rejects 6', () => {
    const five = { a: { b: { c: { d: { e: 1 } } } } };
    expect(() => checkPayload(five, limits)).not.toThrow();
    expect(failure(() => checkPayload({ x: five }, limits))).toEqual({
      code: 'INVALID_ARGUMENT',
      status: 400,
      fields: ['payload'],
    });
  });

  it('rejects a payload over the size limit with PAYLOAD_TOO_LARGE', () => {
    const big = { blob: 'x'.repeat(limits.maxPayloadBytes) };
    expect(failure(() => checkPayload(big, limits))).toEqual({
      code: 'PAYLOAD_TOO_LARGE',
      status: 413,
      fields: ['payload'],
    });
  });
});

describe('checkCallbackUrl', () => {
  const restricted = new Policies({
    taskTypes: {
      'a.b': {
        allowedCallbackHosts: ['orders.internal', '*.svc.local'],
        callbackUrl: 'http://orders.internal/x',
      },
    },
  }).forType('a.b')!;

  it.each([
    { url: 'https://example.com/cb', policy, ok: true },
    // Loopback is refused unless CALLBACK_ALLOW_CIDRS allows it (test/unit/security/callback-guard.test.ts).
    { url: 'http://127.0.0.1:8080/cb', policy, ok: false },
    { url: 'http://user:secret@example.com/cb', policy, ok: false },
    { url: 'ftp://example.com/cb', policy, ok: false },
    { url: '/relative', policy, ok: false },
    { url: 'not a url', policy, ok: false },
    { url: undefined, policy, ok: false },
    { url: undefined, policy: restricted, ok: true },
    { url: 'http://orders.internal/cb', policy: restricted, ok: true },
    { url: 'http://billing.svc.local/cb', policy: restricted, ok: true },
    { url: 'http://evil.example/cb', policy: restricted, ok: false },
  ])('$url → $ok', ({ url, policy: p, ok }) => {
    if (ok) expect(() => checkCallbackUrl(url, p)).not.toThrow();
    else expect(failure(() => checkCallbackUrl(url, p)).fields).toEqual(['callbackUrl']);
  });
});

describe('buildTaskSpec', () => {
  const ctx = {
    owner: 'orders',
    now,
    limits,
    policy,
    callbackTaskQueue: 'q.callbacks._default',
    newTaskId: () => 'generated',
  };

  it('applies defaults and normalizes the due time', () => {
    const { spec } = buildTaskSpec(
      {
        taskType: 'a.b',
        payload: { x: 1 },
        executeAt: '2026-12-02T18:30:00+08:00',
        callbackUrl: 'http://h/cb',
      },
      ctx,
    );
    expect(spec).toEqual({
      taskId: 'generated',
      owner: 'orders',
      // Unique across owners: another owner's task `generated` is another effect at a shared receiver.
      idempotencyKey: 'orders/generated',
      taskType: 'a.b',
      payload: { x: 1 },
      payloadVersion: 1,
      executeAt: '2026-12-02T10:30:00.000Z',
      callbackUrl: 'http://h/cb',
      maxRetries: 3,
      timeoutMs: 30000,
      traceId: null,
      priority: 3,
      createdAt: '2026-12-02T10:00:00.000Z',
      callbackTaskQueue: 'q.callbacks._default',
      retryPolicy: { initialIntervalMs: 1000, multiplier: 2, maxIntervalMs: 600_000, immediateRetries: 0 },
    });
  });

  it('gives the same fingerprint to a retried create, whatever the key order or the hour', () => {
    const a = buildTaskSpec(
      {
        taskType: 'a.b',
        payload: { x: 1, y: [1, 2] },
        delaySeconds: 60,
        callbackUrl: 'http://h/cb',
        taskId: 't',
      },
      ctx,
    );
    const b = buildTaskSpec(
      {
        callbackUrl: 'http://h/cb',
        delaySeconds: 60,
        payload: { y: [1, 2], x: 1 },
        taskType: 'a.b',
        taskId: 't',
      },
      { ...ctx, now: now + 3_600_000 },
    );
    const c = buildTaskSpec(
      {
        taskType: 'a.b',
        payload: { x: 2, y: [1, 2] },
        delaySeconds: 60,
        callbackUrl: 'http://h/cb',
        taskId: 't',
      },
      ctx,
    );
    expect(a.fingerprint).toBe(b.fingerprint);
    expect(a.fingerprint).not.toBe(c.fingerprint);
  });

  it('enforces the type caps', () => {
    const capped = new Policies({
      taskTypes: { 'a.b': { maxRetries: { max: 5 }, timeoutMs: { max: 1000 } } },
    }).forType('a.b')!;
    const base = { taskType: 'a.b', payload: {}, delaySeconds: 1, callbackUrl: 'http://h/cb' };
    expect(
      failure(() => buildTaskSpec({ ...base, maxRetries: 6 }, { ...ctx, policy: capped })).fields,
    ).toEqual(['maxRetries']);
    expect(
      failure(() => buildTaskSpec({ ...base, timeoutMs: 1001 }, { ...ctx, policy: capped })).fields,
    ).toEqual(['timeoutMs']);
    expect(buildTaskSpec(base, { ...ctx, policy: capped }).spec).toMatchObject({
      maxRetries: 3,
      timeoutMs: 1000,
    });
  });
});
