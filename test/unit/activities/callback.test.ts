/**
 * Guards of delivery that only an exact test catches, each written to fail when the guard breaks:
 * the payload cipher binds its key id (AES-GCM additional data), and the callback's identity headers
 * are stable per task and owner-scoped (`Idempotency-Key` and `webhook-id` the same on every attempt,
 * `webhook-id` from the workflow id, not the client's task id; `webhook-timestamp` in seconds).
 * The callback runs as an activity in Temporal's mock activity environment against a real receiver.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActivities, type CallbackInput } from '../../../src/activities/callback.js';
import { CallbackGuard } from '../../../src/security/callback-guard.js';
import { AesGcmPayloadCodec, PayloadKeyError } from '../../../src/security/payload-codec.js';
import { WebhookSecrets } from '../../../src/security/webhook-secrets.js';
import { mintWebhookSecret, webhookId } from '../../../src/security/webhook-signature.js';

describe('payload encryption binds the key id', () => {
  it('refuses a ciphertext whose key id was swapped, though both ids hold the same key', async () => {
    const material = randomBytes(32);
    const codec = new AesGcmPayloadCodec({
      currentKeyId: 'k1',
      keys: new Map([
        ['k1', material],
        ['k2', material],
      ]),
    });
    const [sealed] = await codec.encode([defaultPayloadConverter.toPayload({ secret: 1 })]);
    // The control: unchanged, it decodes.
    expect(defaultPayloadConverter.fromPayload((await codec.decode([sealed!]))[0]!)).toEqual({ secret: 1 });
    const swapped = { ...sealed!, metadata: { ...sealed!.metadata, 'encryption-key-id': Buffer.from('k2') } };
    await expect(codec.decode([swapped])).rejects.toBeInstanceOf(PayloadKeyError);
  });
});

describe('callback identity headers', () => {
  const received: IncomingHttpHeaders[] = [];
  const bodies: string[] = [];
  let server: Server;
  let url: string;
  const secret = mintWebhookSecret();

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        received.push(req.headers);
        bodies.push(body);
        res.end('{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/cb`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('are the same on every attempt, owner-scoped, signed, and timed in seconds', async () => {
    const workflowId = 'orders/order-7';
    const env = new MockActivityEnvironment({
      workflowExecution: { workflowId, runId: 'run-1' },
    });
    // Owner `orders` signs with its own secret, from a secrets file as the worker reads it.
    const secretsFile = join(mkdtempSync(join(tmpdir(), 'delivery-guards-')), 'secrets.json');
    writeFileSync(secretsFile, JSON.stringify({ owners: { orders: [secret] } }));
    const activities = createActivities({
      guard: new CallbackGuard({ allowCidrs: ['127.0.0.1/32'] }),
      secrets: new WebhookSecrets({ secretsFile }),
    });
    const input = (attempt: number): CallbackInput => ({
      taskId: 'order-7',
      owner: 'orders',
      idempotencyKey: 'orders/order-7',
      taskType: 'order.close',
      payload: { n: 1 },
      payloadVersion: 1,
      executeAt: new Date().toISOString(),
      attempt,
      traceId: null,
      callbackUrl: url,
      timeoutMs: 5_000,
    });
    const before = Math.floor(Date.now() / 1000);
    await env.run(activities.deliverCallback, input(1));
    await env.run(activities.deliverCallback, input(2));
    const after = Math.ceil(Date.now() / 1000);

    expect(received).toHaveLength(2);
    const [first, second] = received as [IncomingHttpHeaders, IncomingHttpHeaders];
    expect(first['idempotency-key']).toBe('orders/order-7');
    expect(second['idempotency-key']).toBe(first['idempotency-key']);
    expect(first['webhook-id']).toBe(webhookId(workflowId));
    expect(first['webhook-id']).not.toBe(webhookId('order-7'));
    expect(second['webhook-id']).toBe(first['webhook-id']);
    for (const headers of received) {
      const timestamp = Number(headers['webhook-timestamp']);
      expect(timestamp).toBeGreaterThanOrEqual(before);
      expect(timestamp).toBeLessThanOrEqual(after);
    }
    // What a receiver checks: the Standard Webhooks library verifies each, within its 5-minute window.
    received.forEach((headers, i) => {
      expect(() =>
        new Webhook(secret).verify(bodies[i]!, {
          'webhook-id': String(headers['webhook-id']),
          'webhook-timestamp': String(headers['webhook-timestamp']),
          'webhook-signature': String(headers['webhook-signature']),
        }),
      ).not.toThrow();
    });
  });
});
