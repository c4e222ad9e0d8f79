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
import { connectionsTo } from '../helpers/broker-faults.js';
import { Harness } from '../helpers/harness.js';
import { uniqueId, waitForStatus } from '../helpers/tasks.js';
import { TEST_WEBHOOK_SECRET } from '../helpers/test-env.js';
import { waitFor } from '../helpers/wait.js';

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

  it("fails a publish to an exchange that does not exist alone, with the broker's reason; leaves no connection behind", async () => {
    // An owner may name any exchange its prefix allows, existing or not: the broker closes the
    // channel such a publish was sent on, with every publish in flight on it. Other tasks due at
    // the same moment (another owner's, on a shared broker) must not fail with it, nor be told its
    // reason, and no connection may be left open on the broker.
    const port = Number(new URL(url).port);
    const before = connectionsTo(port);
    const executeAt = new Date(Date.now() + 2000).toISOString();
    const missing = [1, 2, 3].map(() => uniqueId('rabbit.no-exchange'));
    const neighbours = [1, 2, 3, 4, 5].map(() => uniqueId('rabbit.neighbour'));
    const created = await Promise.all([
      ...missing.map((taskId) =>
        h.create({
          taskType,
          taskId,
          payload: {},
          executeAt,
          maxRetries: 1,
          delivery: { mode: 'broker', broker: 'bus', exchange: `orders.missing.${taskId}` },
        }),
      ),
      ...neighbours.map((taskId) =>
        h.create({
          taskType,
          taskId,
          payload: {},
          executeAt,
          delivery: { mode: 'broker', broker: 'bus', exchange },
        }),
      ),
    ]);
    expect(created.map((c) => c.status)).toEqual(created.map(() => 201));
    for (const taskId of missing) {
      const failed = await waitForStatus(h, taskId, 'FAILED');
      expect(failed.attempts).toBe(2);
      expect(failed.lastError?.message).toMatch(/^broker bus: Channel closed by server: 404 \(NOT-FOUND\)/);
      expect(failed.lastError?.message).toContain(`no exchange 'orders.missing.${taskId}'`);
    }
    for (const taskId of neighbours) {
      const done = await waitForStatus(h, taskId, 'SUCCEEDED');
      expect(done.attempts).toBe(1);
    }
    for (const q of [queue, nodeQueue]) {
      const read = await consumeRabbitWithNode(url, q, 'all');
      expect(read.map((m) => m.headers['task-id']).sort()).toEqual([...neighbours].sort());
    }
    // Six channels closed by the broker; the worker holds its one connection.
    await waitFor(() => connectionsTo(port) <= before + 1, {
      timeoutMs: 10_000,
      what: "the worker's connections to the broker to be at most one",
    });
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
