/**
 * Bad input gets a clear 4xx with a stable code and the offending field, and creates nothing.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness } from '../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await Harness.start({ env: { MAX_PAYLOAD_BYTES: '4096' } });
});
afterAll(async () => {
  await h?.stop();
});

function valid(): Record<string, unknown> {
  return {
    taskType: 'order.close_timeout',
    payload: { orderId: '1' },
    delaySeconds: 60,
    callbackUrl: 'http://127.0.0.1:9/cb',
  };
}
const deep = (levels: number): Record<string, unknown> =>
  levels <= 1 ? { leaf: 1 } : { next: deep(levels - 1) };
const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();

describe('create rejects bad input and creates nothing', () => {
  it.each([
    { name: 'an unknown field', patch: { colour: 'red' }, field: 'colour' },
    { name: 'a missing taskType', patch: { taskType: undefined }, field: 'taskType' },
    { name: 'a taskType with capitals', patch: { taskType: 'Order.Close' }, field: 'taskType' },
    { name: 'a payload that is an array', patch: { payload: [1, 2] }, field: 'payload' },
    { name: 'a payload that is a string', patch: { payload: 'x' }, field: 'payload' },
    { name: 'a missing payload', patch: { payload: undefined }, field: 'payload' },
    { name: 'a string where a number goes', patch: { delaySeconds: '60' }, field: 'delaySeconds' },
    { name: 'a negative delay', patch: { delaySeconds: -1 }, field: 'delaySeconds' },
    { name: 'both delaySeconds and executeAt', patch: { executeAt: inAnHour() }, field: 'delaySeconds' },
    { name: 'neither delaySeconds nor executeAt', patch: { delaySeconds: undefined }, field: 'delaySeconds' },
    {
      name: 'an executeAt without offset',
      patch: { delaySeconds: undefined, executeAt: '2026-12-24T10:00:00' },
      field: 'executeAt',
    },
    {
      name: 'an executeAt in epoch seconds',
      patch: { delaySeconds: undefined, executeAt: 1767000000 },
      field: 'executeAt',
    },
    {
      name: 'an executeAt beyond 90 days',
      patch: { delaySeconds: undefined, executeAt: new Date(Date.now() + 91 * 86_400_000).toISOString() },
      field: 'executeAt',
    },
    {
      name: 'an executeAt an hour ago',
      patch: { delaySeconds: undefined, executeAt: new Date(Date.now() - 3_600_000).toISOString() },
      field: 'executeAt',
    },
    {
      name: 'a delay in milliseconds by mistake',
      patch: { delaySeconds: 1_800_000_000 },
      field: 'delaySeconds',
    },
    { name: 'a relative callbackUrl', patch: { callbackUrl: '/cb' }, field: 'callbackUrl' },
    { name: 'a non-http callbackUrl', patch: { callbackUrl: 'ftp://host/cb' }, field: 'callbackUrl' },
    { name: 'a missing callbackUrl', patch: { callbackUrl: undefined }, field: 'callbackUrl' },
    { name: 'a taskId with a space', patch: { taskId: 'a b' }, field: 'taskId' },
    { name: 'a numeric taskId', patch: { taskId: 12345 }, field: 'taskId' },
    { name: 'maxRetries over 50', patch: { maxRetries: 51 }, field: 'maxRetries' },
    { name: 'a fractional maxRetries', patch: { maxRetries: 1.5 }, field: 'maxRetries' },
    { name: 'timeoutMs under 100', patch: { timeoutMs: 99 }, field: 'timeoutMs' },
    { name: 'timeoutMs over 600000', patch: { timeoutMs: 600_001 }, field: 'timeoutMs' },
    { name: 'payloadVersion 0', patch: { payloadVersion: 0 }, field: 'payloadVersion' },
    { name: 'a traceId over 128 chars', patch: { traceId: 'x'.repeat(129) }, field: 'traceId' },
    { name: 'priority 0', patch: { priority: 0 }, field: 'priority' },
    { name: 'priority 6', patch: { priority: 6 }, field: 'priority' },
    {
      name: 'an integer beyond 2^53 in the payload',
      patch: { payload: { id: Number('9007199254740993') } },
      field: 'payload.id',
    },
    { name: 'a payload nested 6 levels', patch: { payload: deep(6) }, field: 'payload' },
  ])('$name → 400 INVALID_ARGUMENT on $field', async ({ patch, field }) => {
    const taskId = `bad-${randomUUID()}`;
    const body = { ...valid(), taskId, ...patch };
    const response = await h.app.inject({
      method: 'POST',
      url: '/api/v1/tasks',
      payload: JSON.stringify(body),
      headers: { 'content-type': 'application/json' },
    });
    expect(response.statusCode).toBe(400);
    const { error } = response.json();
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toEqual(expect.any(String));
    expect(error.details.map((d: { field: string }) => d.field)).toContain(field);
    if (typeof body.taskId === 'string' && /^[A-Za-z0-9]/.test(body.taskId) && !body.taskId.includes(' ')) {
      expect((await h.get(body.taskId)).status).toBe(404);
    }
  });

  it('accepts a payload nested exactly 5 levels', async () => {
    const { status } = await h.create({ ...valid(), payload: deep(5) });
    expect(status).toBe(201);
  });

  it('rejects a number beyond 2^53 written in the raw JSON, telling the caller to send strings', async () => {
    const raw = `{"taskType":"a.b","payload":{"userId":12345678901234567890},"delaySeconds":5,"callbackUrl":"http://127.0.0.1:9/cb"}`;
    const response = await h.app.inject({
      method: 'POST',
      url: '/api/v1/tasks',
      payload: raw,
      headers: { 'content-type': 'application/json' },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.details[0]).toEqual({
      field: 'payload.userId',
      reason: expect.stringContaining('as strings'),
    });
  });

  it('rejects a non-finite number', async () => {
    const raw = `{"taskType":"a.b","payload":{"x":1e400},"delaySeconds":5,"callbackUrl":"http://127.0.0.1:9/cb"}`;
    const response = await h.app.inject({
      method: 'POST',
      url: '/api/v1/tasks',
      payload: raw,
      headers: { 'content-type': 'application/json' },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.details[0].field).toBe('payload.x');
  });

  it.each([
    { name: 'malformed JSON', raw: '{"taskType": "a.b",', code: 'INVALID_ARGUMENT', status: 400 },
    { name: 'an empty body', raw: '', code: 'INVALID_ARGUMENT', status: 400 },
    {
      name: 'a prototype-poisoning body',
      raw: '{"__proto__":{"x":1},"taskType":"a.b"}',
      code: 'INVALID_ARGUMENT',
      status: 400,
    },
  ])('$name → $status $code', async ({ raw, code, status }) => {
    const response = await h.app.inject({
      method: 'POST',
      url: '/api/v1/tasks',
      payload: raw,
      headers: { 'content-type': 'application/json' },
    });
    expect(response.statusCode).toBe(status);
    expect(response.json().error.code).toBe(code);
  });

  it('answers 413 PAYLOAD_TOO_LARGE for a payload over the configured size, and for a huge body', async () => {
    const taskId = `big-${randomUUID()}`;
    const big = await h.create({ ...valid(), taskId, payload: { blob: 'x'.repeat(5000) } });
    expect(big.status).toBe(413);
    expect((big.raw as { error: { code: string } }).error.code).toBe('PAYLOAD_TOO_LARGE');
    expect((await h.get(taskId)).status).toBe(404);
    const huge = await h.create({ ...valid(), payload: { blob: 'x'.repeat(200_000) } });
    expect(huge.status).toBe(413);
    expect((huge.raw as { error: { code: string } }).error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('answers 415 for a body that is not JSON', async () => {
    const response = await h.app.inject({
      method: 'POST',
      url: '/api/v1/tasks',
      payload: 'taskType=a',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(response.statusCode).toBe(415);
    expect(response.json().error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });
});

describe('idempotent create', () => {
  it('returns the existing task for the same id and spec, 409 TASK_CONFLICT for another spec', async () => {
    const body = { ...valid(), taskId: `idem-${randomUUID()}`, payload: { orderId: '7', lines: [1, 2] } };
    const first = await h.create(body);
    expect(first.status).toBe(201);
    const again = await h.create({ ...body, payload: { lines: [1, 2], orderId: '7' } });
    expect(again.status).toBe(200);
    expect(again.task).toEqual(first.task);
    const conflict = await h.create({ ...body, payload: { orderId: '8' } });
    expect(conflict.status).toBe(409);
    expect((conflict.raw as { error: { code: string } }).error.code).toBe('TASK_CONFLICT');
    expect((await h.get(body.taskId)).body.payload).toEqual({ orderId: '7', lines: [1, 2] });
  });

  it('sets a Location header on 201 and generates an id when none is given', async () => {
    const response = await h.app.inject({ method: 'POST', url: '/api/v1/tasks', payload: valid() });
    expect(response.statusCode).toBe(201);
    const { taskId } = response.json();
    expect(taskId).toMatch(/^[0-9a-f-]{36}$/);
    expect(response.headers.location).toBe(`/api/v1/tasks/${taskId}`);
  });
});

describe('look-ups of what does not exist', () => {
  it.each([
    { method: 'GET' as const, url: '/api/v1/tasks/no-such-task', status: 404, code: 'TASK_NOT_FOUND' },
    {
      method: 'POST' as const,
      url: '/api/v1/tasks/no-such-task/cancel',
      status: 404,
      code: 'TASK_NOT_FOUND',
    },
    { method: 'GET' as const, url: '/api/v1/nothing', status: 404, code: 'NOT_FOUND' },
    { method: 'GET' as const, url: '/api/v1/tasks?status=LOST', status: 400, code: 'INVALID_ARGUMENT' },
    { method: 'GET' as const, url: '/api/v1/tasks?pageSize=0', status: 400, code: 'INVALID_ARGUMENT' },
  ])('$method $url → $status $code', async ({ method, url, status, code }) => {
    const response = await h.app.inject({ method, url });
    expect(response.statusCode).toBe(status);
    expect(response.json().error.code).toBe(code);
  });
});
