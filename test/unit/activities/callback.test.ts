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
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActivities, type CallbackInput } from '../../../src/activities/callback.js';
import { CallbackGuard } from '../../../src/security/callback-guard.js';
import { HeaderSecrets } from '../../../src/security/header-secrets.js';
import { CallbackFailureType } from '../../../src/shared/task.js';
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

  it('are never sent without a header secret the policy names: held, no attempt counted (docs/configuration.md)', async () => {
    const before = received.length;
    const env = new MockActivityEnvironment({ workflowExecution: { workflowId: 'order-8', runId: 'run-1' } });
    const activities = createActivities({
      guard: new CallbackGuard({ allowCidrs: ['127.0.0.1/32'] }),
      secrets: new WebhookSecrets({ defaultSecrets: [secret] }),
      headersFor: () => ({ Authorization: { env: 'ORDERS_TOKEN' } }),
      headerSecrets: new HeaderSecrets(() => undefined),
    });
    const failure: ApplicationFailure = await env
      .run(activities.deliverCallback, {
        taskId: 'order-8',
        taskType: 'order.close',
        payload: {},
        payloadVersion: 1,
        executeAt: new Date().toISOString(),
        attempt: 1,
        traceId: null,
        callbackUrl: url,
        timeoutMs: 5_000,
      })
      .then(
        () => ApplicationFailure.create({ message: 'delivered' }),
        (err: unknown) => err as ApplicationFailure,
      );
    expect(failure.type).toBe(CallbackFailureType.Held);
    expect(failure.message).toMatch(/^held, not sent \(no attempt counted\): .*ORDERS_TOKEN is not set/);
    expect(received).toHaveLength(before);
  });
});

describe('a callback refused at send time', () => {
  it('tells the task which rule refused, and only the log what the host resolved to', async () => {
    const logged: { message: string; meta: Record<string, unknown> | undefined }[] = [];
    const record = (message: string, meta?: Record<string, unknown>) => logged.push({ message, meta });
    const env = new MockActivityEnvironment(
      { workflowExecution: { workflowId: 'rebound', runId: 'run-1' } },
      {
        logger: {
          log: (_level, message, meta) => record(message, meta),
          trace: record,
          debug: record,
          info: record,
          warn: record,
          error: record,
        },
      },
    );
    // The name now resolves inside our network (DNS rebinding after create).
    const activities = createActivities({
      guard: new CallbackGuard(),
      resolve: async () => [{ address: '10.20.30.40', family: 4 }],
      secrets: new WebhookSecrets({ defaultSecrets: [mintWebhookSecret()] }),
    });
    const failure: Error = await env
      .run(activities.deliverCallback, {
        taskId: 'rebound',
        taskType: 'order.close',
        payload: {},
        payloadVersion: 1,
        executeAt: new Date().toISOString(),
        attempt: 1,
        traceId: null,
        callbackUrl: 'http://rebind.test:8080/hook',
        timeoutMs: 5_000,
      })
      .then(
        () => new Error('delivered'),
        (err: unknown) => err as Error,
      );
    // What becomes the task's lastError: the rule, the host as written, no address.
    expect(failure.message).toMatch(/^callback refused: host rebind\.test resolves to a private address/);
    expect(failure.message).not.toContain('10.20.30.40');
    // The operator's log keeps it.
    const line = logged.find((entry) => entry.message === 'callback attempt failed');
    expect(line?.meta).toMatchObject({ taskId: 'rebound', address: '10.20.30.40' });
  });
});
