/**
 * Cost of signing and encryption per task, measured on their own (no Temporal, no network):
 * `npx tsx bench/micro/security-cost.ts`. Prints µs per operation and per task (`PAYLOADS_PER_TASK`).
 */
import { performance } from 'node:perf_hooks';
import { defaultPayloadConverter } from '@temporalio/common';
import { AesGcmPayloadCodec, mintPayloadKey } from '../../src/security/payload-codec.js';
import { mintWebhookSecret, signWebhook, webhookId } from '../../src/security/webhook-signature.js';

/**
 * Payloads one task sends through the codec, counted (2026-12-03) by wrapping the codec of an
 * integration harness: 5 tasks created through the API, each delivered once and read with GET until
 * SUCCEEDED (a few status queries each). Client and worker both count, as both run in the harness.
 */
const PAYLOADS_PER_TASK = { encode: 24, decode: 16 };

function time(label: string, iterations: number, fn: () => unknown): number {
  for (let i = 0; i < Math.min(1000, iterations); i++) fn();
  const started = performance.now();
  for (let i = 0; i < iterations; i++) fn();
  const us = ((performance.now() - started) * 1000) / iterations;
  console.log(`${label.padEnd(52)} ${us.toFixed(2).padStart(8)} µs`);
  return us;
}

async function timeAsync(label: string, iterations: number, fn: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < Math.min(1000, iterations); i++) await fn();
  const started = performance.now();
  for (let i = 0; i < iterations; i++) await fn();
  const us = ((performance.now() - started) * 1000) / iterations;
  console.log(`${label.padEnd(52)} ${us.toFixed(2).padStart(8)} µs`);
  return us;
}

const body = JSON.stringify({
  taskId: 'order-10023-close',
  taskType: 'order.close_timeout',
  payload: { orderId: '10023', customer: 'c-77', amount: 1999, items: [1, 2, 3] },
  payloadVersion: 1,
  executeAt: '2026-12-03T10:00:00.000Z',
  attempt: 1,
  traceId: null,
});
const one = [mintWebhookSecret()];
const two = [mintWebhookSecret(), mintWebhookSecret()];
const id = webhookId('order-10023-close');

console.log(`callback body ${body.length} bytes; Node ${process.version}`);
const sign1 = time('sign a callback, one secret', 50_000, () => signWebhook(one, id, 1764756000, body));
time('sign a callback, two secrets (rotation)', 50_000, () => signWebhook(two, id, 1764756000, body));
time('webhook-id', 50_000, () => webhookId('order-10023-close'));

const codec = new AesGcmPayloadCodec({
  currentKeyId: 'k',
  keys: new Map([['k', Buffer.from(mintPayloadKey(), 'base64')]]),
});
const payload = defaultPayloadConverter.toPayload(JSON.parse(body));
const [encrypted] = await codec.encode([payload]);
const enc = await timeAsync('encrypt one payload (AES-256-GCM)', 50_000, () => codec.encode([payload]));
const dec = await timeAsync('decrypt one payload', 50_000, () => codec.decode([encrypted!]));
const perTask = PAYLOADS_PER_TASK.encode * enc + PAYLOADS_PER_TASK.decode * dec;
console.log(
  `\nper task: signing ${sign1.toFixed(1)} µs per attempt; encryption ≈ ${perTask.toFixed(0)} µs ` +
    `(${PAYLOADS_PER_TASK.encode} encodes + ${PAYLOADS_PER_TASK.decode} decodes), ` +
    `against ≈ 47 ms of CPU per task for Temporal and the worker (README, Benchmark)`,
);
