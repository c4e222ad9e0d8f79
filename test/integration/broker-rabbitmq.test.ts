/**
 * RabbitMQ targets against a real rabbitmq-server started by scripts/local-server.sh: a due task is
 * published once, persistent, with message id = its idempotency key, and read alike by Python's pika
 * and Node's amqplib (each on a queue of its own bound to the exchange); a message no queue takes (mandatory, returned) is a failed attempt, retried and dead-lettered; an
 * exchange the owner may not name is refused with 400 and nothing started.
 */
import amqp, { type ChannelModel } from 'amqplib';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signWebhook } from '../../src/security/webhook-signature.js';
import { idempotencyKeyOf } from '../../src/shared/owner.js';
import { consumeWithPython, ensurePythonBrokers, localServer, writeBrokersFile } from '../helpers/brokers.js';
import { consumeRabbitWithNode } from '../helpers/broker-consume-node.js';
import { Harness } from '../helpers/harness.js';
import { uniqueId, waitForStatus } from '../helpers/tasks.js';
import { TEST_WEBHOOK_SECRET } from '../helpers/test-env.js';

const RETRY = { immediateRetries: 0, initialIntervalMs: 200, multiplier: 1, maxIntervalMs: 200 };
const exchange = `orders.${uniqueId('x')}`;
const queue = `orders.due.${uniqueId('q')}`;
/** A second consumer service's queue on the same exchange and key: each queue gets its own copy. */
const nodeQueue = `orders.due.node.${uniqueId('q')}`;
const taskType = `broker.rabbit.${uniqueId('t')}`;

let h: Harness;
let url: string;
let admin: ChannelModel;

beforeAll(async () => {
  url = localServer('rabbitmq');
  await ensurePythonBrokers();
  admin = await amqp.connect(url);
  const channel = await admin.createChannel();
  await channel.assertExchange(exchange, 'direct', { durable: true });
  await channel.assertQueue(queue, { durable: true });
  await channel.bindQueue(queue, exchange, taskType);
  await channel.assertQueue(nodeQueue, { durable: true });
  await channel.bindQueue(nodeQueue, exchange, taskType);
  await channel.close();
  // The declaration carries no credentials in its URL: they come from the environment.
  const bare = new URL(url);
  bare.username = '';
  bare.password = '';
  h = await Harness.start({
    env: {
      BROKERS_FILE: writeBrokersFile({
        bus: {
          kind: 'rabbitmq',
          url: bare.toString(),
          username: 'guest',
          passwordEnv: 'TEST_RABBIT_PASSWORD',
          owners: { default: ['orders.*'] },
        },
      }),
      TEST_RABBIT_PASSWORD: 'guest',
    },
    policies: { taskTypes: { [taskType]: { retry: RETRY } } },
  });
}, 600_000);

afterAll(async () => {
  await h?.stop();
  await admin?.close();
});

describe('a RabbitMQ target', () => {
  it('publishes once when due, persistent, message id = idempotency key, signed; pika and amqplib read it', async () => {
    const taskId = uniqueId('rabbit.once');
    const created = await h.create({
      taskType,
      taskId,
      payload: { orderId: 7 },
      delaySeconds: 1,
      delivery: { mode: 'broker', broker: 'bus', exchange },
    });
    expect(created.status).toBe(201);
    const done = await waitForStatus(h, taskId, 'SUCCEEDED');
    const consumed = await consumeWithPython('rabbitmq', [url, queue], 2, 2);
    expect(consumed).toHaveLength(1);
    const [message] = consumed;
    expect(JSON.parse(message!.body)).toEqual({
      taskId,
      taskType,
      payload: { orderId: 7 },
      payloadVersion: 1,
      executeAt: done.executeAt,
      attempt: 1,
      traceId: null,
    });
    expect(message!.properties).toEqual({
      messageId: idempotencyKeyOf('default', taskId),
      deliveryMode: 2,
      contentType: 'application/json',
      type: taskType,
    });
    const headers = message!.headers;
    expect(headers['idempotency-key']).toBe(idempotencyKeyOf('default', taskId));
    expect(headers['webhook-signature']).toBe(
      signWebhook(
        [TEST_WEBHOOK_SECRET],
        headers['webhook-id']!,
        Number(headers['webhook-timestamp']),
        message!.body,
      ),
    );
    // A consumer in Node reads the same message, and verifies it with the Standard Webhooks library.
    const read = await consumeRabbitWithNode(url, nodeQueue, 'all');
    expect(read).toEqual(consumed);
    expect(() =>
      new Webhook(TEST_WEBHOOK_SECRET).verify(read[0]!.body, {
        'webhook-id': read[0]!.headers['webhook-id']!,
        'webhook-timestamp': read[0]!.headers['webhook-timestamp']!,
        'webhook-signature': read[0]!.headers['webhook-signature']!,
      }),
    ).not.toThrow();
  });

  it('counts a message no queue takes (returned) as failed: retried, then dead-lettered', async () => {
    const taskId = uniqueId('rabbit.unroutable');
    const created = await h.create({
      taskType,
      taskId,
      payload: {},
      delaySeconds: 0,
      maxRetries: 1,
      delivery: { mode: 'broker', broker: 'bus', exchange, routingKey: 'nobody.listens' },
    });
    expect(created.status).toBe(201);
    const failed = await waitForStatus(h, taskId, 'FAILED');
    expect(failed.attempts).toBe(2);
    expect(failed.lastError?.message).toMatch(/^broker bus: unroutable/);
  });

  it('refuses an exchange the owner may not name with 400, and starts nothing', async () => {
    const taskId = uniqueId('rabbit.refused');
    const { status, raw } = await h.create({
      taskType,
      taskId,
      payload: {},
      delaySeconds: 0,
      delivery: { mode: 'broker', broker: 'bus', exchange: 'billing.x' },
    });
    expect(status).toBe(400);
    expect((raw as { error: { details: unknown[] } }).error.details).toContainEqual(
      expect.objectContaining({ field: 'delivery.exchange' }),
    );
    expect((await h.get(taskId)).status).toBe(404);
  });
});
