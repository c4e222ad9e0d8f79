/** A callback as the service signs it (Standard Webhooks, the fixed test secret and clock). */
import { createHmac } from 'node:crypto';

export const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
export const NOW = 1764756000;

export interface Signed {
  headers: Record<string, string>;
  body: string;
}

/**
 * A signed delivery of task `t-1` (or `fields.taskId`): `id` is its `webhook-id`, the same on
 * every attempt of one task; `Idempotency-Key` is the task id, as the service sends it.
 */
export function signedRequest(fields: Record<string, unknown> = {}, id = 'msg_1', timestamp = NOW): Signed {
  const body = JSON.stringify({
    taskId: 't-1',
    taskType: 'order.close',
    payload: { orderId: '1' },
    payloadVersion: 1,
    executeAt: '2025-12-03T10:00:00.000Z',
    attempt: 1,
    traceId: null,
    ...fields,
  });
  const signature = createHmac('sha256', Buffer.from(SECRET.slice(6), 'base64'))
    .update(`${id}.${timestamp}.${body}`)
    .digest('base64');
  const headers = {
    'content-type': 'application/json',
    'idempotency-key': JSON.parse(body).taskId as string,
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': `v1,${signature}`,
  };
  return { headers, body };
}

/** The same captured bytes with the unsigned `Idempotency-Key` header changed (`null`: removed). */
export function withKey({ headers, body }: Signed, key: string | null): Signed {
  const { 'idempotency-key': _dropped, ...rest } = headers;
  return { headers: key === null ? rest : { ...rest, 'idempotency-key': key }, body };
}
