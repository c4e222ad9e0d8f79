import { describe, expect, it } from 'vitest';
import { toTraceparent } from '../../../src/activities/callback.js';
import { classifyResponse, parseRetryAfter } from '../../../src/activities/classify.js';
import { checkNumbers } from '../../../src/http/json-body.js';
import { oldestAgeSeconds } from '../../../src/api/metrics.js';
import { retryDelayMs, withinTotalTime, type RetryPolicy } from '../../../src/shared/backoff.js';

const now = Date.parse('2026-12-02T10:00:00Z');

describe('classifyResponse', () => {
  it.each([
    { status: 200, kind: 'success' },
    { status: 204, kind: 'success' },
    { status: 301, type: 'CallbackPermanent' },
    { status: 400, type: 'CallbackPermanent' },
    { status: 404, type: 'CallbackPermanent' },
    { status: 408, type: 'CallbackRetryable' },
    { status: 409, type: 'CallbackPermanent' },
    { status: 425, type: 'CallbackRetryable' },
    { status: 429, type: 'CallbackRetryable' },
    { status: 500, type: 'CallbackRetryable' },
    { status: 503, type: 'CallbackRetryable' },
  ])('HTTP $status', ({ status, kind, type }) => {
    const outcome = classifyResponse(status, undefined, now);
    if (kind) expect(outcome.kind).toBe(kind);
    else expect(outcome).toMatchObject({ kind: 'failure', type, statusCode: status });
  });

  it('reads Retry-After on 429 and 503 only', () => {
    expect(classifyResponse(429, '7', now)).toMatchObject({ retryAfterMs: 7000 });
    expect(classifyResponse(503, 'Wed, 02 Dec 2026 10:00:30 GMT', now)).toMatchObject({
      retryAfterMs: 30_000,
    });
    expect(classifyResponse(500, '7', now)).not.toHaveProperty('retryAfterMs');
  });

  it.each([undefined, '', 'soon', '-1'])('ignores an unreadable Retry-After %j', (value) => {
    expect(parseRetryAfter(value, now)).toBeUndefined();
  });
});

describe('retryDelayMs', () => {
  it.each([
    { retry: 1, expected: 1000 },
    { retry: 2, expected: 2000 },
    { retry: 3, expected: 4000 },
    { retry: 10, expected: 512_000 },
    { retry: 11, expected: 600_000 },
    { retry: 50, expected: 600_000 },
    { retry: 1, retryAfter: 30_000, expected: 30_000 },
    { retry: 4, retryAfter: 1000, expected: 8000 },
    { retry: 1, retryAfter: 3_600_000, expected: 600_000 },
  ])('retry $retry (Retry-After $retryAfter) → $expected ms', ({ retry, retryAfter, expected }) => {
    expect(retryDelayMs(retry, retryAfter)).toBe(expected);
  });
});

describe("retryDelayMs under a type's retry policy", () => {
  const twoTier: RetryPolicy = {
    immediateRetries: 2,
    initialIntervalMs: 30_000,
    multiplier: 2,
    maxIntervalMs: 120_000,
  };
  it.each([
    { retry: 1, expected: 0 },
    { retry: 2, expected: 0 },
    { retry: 3, expected: 30_000 },
    { retry: 4, expected: 60_000 },
    { retry: 5, expected: 120_000 },
    { retry: 9, expected: 120_000 },
    { retry: 1, retryAfter: 5000, expected: 5000 },
    { retry: 3, retryAfter: 5000, expected: 30_000 },
    { retry: 5, retryAfter: 300_000, expected: 300_000 },
    { retry: 5, retryAfter: 3_600_000, expected: 600_000 },
  ])('two-tier: retry $retry (Retry-After $retryAfter) → $expected ms', ({ retry, retryAfter, expected }) => {
    expect(retryDelayMs(retry, retryAfter, twoTier)).toBe(expected);
  });

  it('lets a policy cap above 10 minutes bound Retry-After', () => {
    const slow: RetryPolicy = {
      immediateRetries: 0,
      initialIntervalMs: 60_000,
      multiplier: 1,
      maxIntervalMs: 3_600_000,
    };
    expect(retryDelayMs(1, 1_800_000, slow)).toBe(1_800_000);
    expect(retryDelayMs(1, 7_200_000, slow)).toBe(3_600_000);
  });

  it.each([
    { maxTotalSeconds: undefined, now: 1e9, delay: 1e9, expected: true },
    { maxTotalSeconds: 10, now: 5000, delay: 5000, expected: true },
    { maxTotalSeconds: 10, now: 5000, delay: 5001, expected: false },
    { maxTotalSeconds: 10, now: 11_000, delay: 0, expected: false },
  ])(
    'maxTotalSeconds $maxTotalSeconds: next attempt at $now + $delay ms → $expected',
    ({ maxTotalSeconds, now, delay, expected }) => {
      const policy: RetryPolicy = {
        immediateRetries: 0,
        initialIntervalMs: 1,
        multiplier: 1,
        maxIntervalMs: 1,
        maxTotalSeconds,
      };
      expect(withinTotalTime(policy, 0, now, delay)).toBe(expected);
    },
  );
});

describe('toTraceparent', () => {
  it('keeps a W3C trace id and makes a span id per attempt', () => {
    const a = toTraceparent('4bf92f3577b34da6a3ce929d0e0e4736', 't1', 1);
    const b = toTraceparent('4bf92f3577b34da6a3ce929d0e0e4736', 't1', 2);
    expect(a).toMatch(/^00-4bf92f3577b34da6a3ce929d0e0e4736-[0-9a-f]{16}-01$/);
    expect(a).not.toBe(b);
  });

  it('takes the trace id out of a full traceparent and hashes any other id', () => {
    expect(toTraceparent('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', 't', 1)).toMatch(
      /^00-4bf92f3577b34da6a3ce929d0e0e4736-/,
    );
    expect(toTraceparent('req-123', 't', 1)).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(toTraceparent(null, 't', 1)).toBeUndefined();
  });
});

describe('checkNumbers', () => {
  it.each([
    { body: { payload: { id: 9007199254740991 } }, ok: true },
    { body: { payload: { id: -9007199254740991, x: 1.5 } }, ok: true },
    { body: { payload: { id: Number('9007199254740993') } }, field: 'payload.id' },
    { body: { payload: { list: [1, 2, Number('1e400')] } }, field: 'payload.list.2' },
    { body: { maxRetries: 1e300 }, field: 'maxRetries' },
  ])('$body', ({ body, ok, field }) => {
    if (ok) return expect(() => checkNumbers(body)).not.toThrow();
    expect(() => checkNumbers(body)).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT', details: [expect.objectContaining({ field })] }),
    );
  });
});

describe('oldestAgeSeconds', () => {
  it.each([{ oldest: 0 }, { oldest: 1.2 }, { oldest: 73 }, { oldest: 86_400 * 3 }])(
    'finds an item overdue by $oldest s within 5%',
    async ({ oldest }) => {
      const ages = oldest === 0 ? [] : [oldest * 1000, 500];
      let queries = 0;
      const age = await oldestAgeSeconds(async (olderThanMs) => {
        queries++;
        return ages.filter((a) => a > olderThanMs).length;
      }, 90 * 86_400_000);
      if (oldest === 0) expect(age).toBe(0);
      else expect(Math.abs(age - oldest)).toBeLessThanOrEqual(Math.max(1, oldest * 0.05));
      expect(queries).toBeLessThan(60);
    },
  );
});
