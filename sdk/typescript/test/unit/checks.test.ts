import { describe, expect, it } from 'vitest';
import { checkPayload, checkTarget, wireWhen, type When } from '../../src/checks.js';
import { DelayedTasksClient } from '../../src/index.js';
import { DelayedTaskError } from '../../src/errors.js';

function refusal(run: () => unknown): string | undefined {
  try {
    run();
    return undefined;
  } catch (err) {
    expect(err).toBeInstanceOf(DelayedTaskError);
    const error = err as DelayedTaskError;
    expect([error.code, error.status]).toEqual(['INVALID_ARGUMENT', 0]);
    return error.details[0]?.field;
  }
}

/** The message of the refusal: `<field> <reason>`, the reason as in every SDK. */
function refusalMessage(run: () => unknown): string | undefined {
  try {
    run();
    return undefined;
  } catch (err) {
    expect(err).toBeInstanceOf(DelayedTaskError);
    const error = err as DelayedTaskError;
    expect([error.code, error.status]).toEqual(['INVALID_ARGUMENT', 0]);
    expect(error.message).toBe(`${error.details[0]?.field} ${error.details[0]?.reason}`);
    return error.message;
  }
}

describe('checkPayload', () => {
  it.each([
    { payload: { a: 1, b: 'x', c: [true, null], d: { e: 0.1 } }, field: undefined },
    { payload: { max: Number.MAX_SAFE_INTEGER, min: -Number.MAX_SAFE_INTEGER }, field: undefined },
    { payload: { big: 9007199254740991n }, field: undefined },
    { payload: { at: new Date(0) }, field: undefined },
    { payload: { a: { b: NaN } }, field: 'payload.a.b' },
    { payload: { items: [1, Infinity] }, field: 'payload.items.1' },
    { payload: { x: [{ y: -Infinity }] }, field: 'payload.x.0.y' },
    { payload: { id: 2 ** 53 }, field: 'payload.id' },
    { payload: { id: 1e300 }, field: 'payload.id' },
    { payload: { id: -9007199254740993n }, field: 'payload.id' },
    { payload: [], field: 'payload' },
    { payload: null, field: 'payload' },
    { payload: 'text', field: 'payload' },
  ])('$payload -> $field', ({ payload, field }) => {
    expect(refusal(() => checkPayload(payload))).toBe(field);
  });
});

describe('wireWhen', () => {
  it.each<{ when: When; required: boolean; wire?: object; message?: string }>([
    { when: { delaySeconds: 1.5 }, required: true, wire: { delaySeconds: 1.5 } },
    { when: { delaySeconds: 0.0004 }, required: true, wire: { delaySeconds: 0 } },
    { when: { delaySeconds: 1.2345 }, required: true, wire: { delaySeconds: 1.235 } },
    {
      when: { executeAt: new Date('2026-12-03T18:30:00+08:00') },
      required: true,
      wire: { executeAt: '2026-12-03T10:30:00.000Z' },
    },
    {
      when: { executeAt: '2026-12-03T18:30:00+08:00' },
      required: true,
      wire: { executeAt: '2026-12-03T18:30:00+08:00' },
    },
    {
      when: { executeAt: '2026-12-03T10:30:00z' },
      required: true,
      wire: { executeAt: '2026-12-03T10:30:00z' },
    },
    { when: {}, required: false, wire: {} },
    { when: {}, required: true, message: 'delaySeconds give exactly one of delaySeconds or executeAt' },
    {
      when: { delaySeconds: 1, executeAt: new Date() },
      required: true,
      message: 'delaySeconds give exactly one of delaySeconds or executeAt',
    },
    {
      when: { delaySeconds: 1, executeAt: new Date() },
      required: false,
      message: 'delaySeconds give at most one of delaySeconds or executeAt',
    },
    { when: { delaySeconds: -0.001 }, required: true, message: 'delaySeconds must not be negative' },
    { when: { delaySeconds: NaN }, required: true, message: 'delaySeconds is not a finite number' },
    { when: { delaySeconds: Infinity }, required: false, message: 'delaySeconds is not a finite number' },
    {
      when: { executeAt: '2026-12-03T18:30:00' },
      required: true,
      message: 'executeAt must be an RFC 3339 time with an offset (Z or +08:00)',
    },
    {
      when: { executeAt: 'tomorrow Z' },
      required: true,
      message: 'executeAt must be an RFC 3339 time with an offset (Z or +08:00)',
    },
    { when: { executeAt: new Date('nope') }, required: true, message: 'executeAt is an invalid Date' },
  ])('$when (required: $required)', ({ when, required, wire, message }) => {
    if (message) expect(refusalMessage(() => wireWhen(when, required))).toBe(message);
    else expect(wireWhen(when, required)).toEqual(wire);
  });
});

describe('a callback URL and a delivery', () => {
  it('are refused together before any request, on a create and on a schedule', async () => {
    let requests = 0;
    const client = new DelayedTasksClient({
      baseUrl: 'http://svc.test',
      fetch: () => {
        requests += 1;
        return Promise.resolve(new Response('{}', { status: 500 }));
      },
    });
    const both = { callbackUrl: 'http://127.0.0.1:9/cb', delivery: { mode: 'pull' } } as const;
    await expect(client.create({ taskType: 't', payload: {}, delaySeconds: 1, ...both })).rejects.toThrow(
      'delivery give either callbackUrl or delivery, not both',
    );
    await expect(
      client.createSchedule({ scheduleId: 's', every: '1h', task: { taskType: 't', payload: {}, ...both } }),
    ).rejects.toThrow('task.delivery give either callbackUrl or delivery, not both');
    expect(requests).toBe(0);
    // Either alone passes the check.
    expect(refusal(() => checkTarget({ delivery: { mode: 'pull' } }))).toBeUndefined();
    expect(refusal(() => checkTarget({ callbackUrl: 'http://127.0.0.1:9/cb' }))).toBeUndefined();
  });
});
