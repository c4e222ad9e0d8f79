/**
 * RabbitMQ faults, against a rabbitmq-server of this file's own (scripts/local-server.sh
 * rabbitmq@broker-faults: stopped and frozen here, other files' broker untouched) and a worker run as
 * its own process, as deployed (the flows in ../helpers/broker-fault-flows.ts):
 * - the broker down: each attempt fails, retried with the task type's backoff, then dead-lettered;
 *   replayed once the broker is back, the queue holds the message once; the worker's /metrics counted
 *   every failure and the publish, and timed each;
 * - the worker killed (-9) mid-publish: the broker frozen, the publish waits unread in its socket; a
 *   new worker publishes again, the task succeeds, and every copy in the queue carries the task's key.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import amqp from 'amqplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idempotencyKeyOf } from '../../src/shared/owner.js';
import { consumeRabbitWithNode } from '../helpers/broker-consume-node.js';
import { BrokerFaults } from '../helpers/broker-fault-flows.js';
import { writeBrokersFile } from '../helpers/brokers.js';
import { uniqueId } from '../helpers/tasks.js';

const taskType = `broker.rabbit.faults.${uniqueId('t')}`;
const exchange = `faults.${uniqueId('x')}`;
const queue = `faults.due.${uniqueId('q')}`;

/** Declares the exchange and its queue (durable: they outlive the broker's restart). */
async function brokersFile(url: string): Promise<string> {
  const admin = await amqp.connect(url);
  const channel = await admin.createChannel();
  await channel.assertExchange(exchange, 'direct', { durable: true });
  await channel.assertQueue(queue, { durable: true });
  await channel.bindQueue(queue, exchange, taskType);
  await admin.close();
  // The password from a file, as a mounted Secret gives it; the URL without credentials.
  const passwordFile = join(mkdtempSync(join(tmpdir(), 'rabbit-password-')), 'password');
  writeFileSync(passwordFile, 'guest\n');
  const bare = new URL(url);
  bare.username = '';
  bare.password = '';
  return writeBrokersFile({
    down: {
      kind: 'rabbitmq',
      url: bare.toString(),
      username: 'guest',
      passwordFile,
      owners: { default: ['faults.*'] },
    },
  });
}

const faults = new BrokerFaults({ kind: 'rabbitmq', taskType, brokersFile });

beforeAll(() => faults.start(), 600_000);
afterAll(() => faults.stop());

/** Publishes a task and drains it: the worker's connection to the broker is open (as in production). */
async function warmUp(): Promise<void> {
  await faults.warmUp({ exchange });
  expect(await consumeRabbitWithNode(faults.url, queue, 'all')).toHaveLength(1);
}

describe('RabbitMQ faults', () => {
  it('retries a broker that is down with the backoff, dead-letters, and delivers once on replay; /metrics counts each', async () => {
    await warmUp();
    // The broker comes back on the same port with the durable exchange and queue: nothing to declare again.
    const taskId = await faults.downThenReplay({ exchange });
    const messages = await consumeRabbitWithNode(faults.url, queue, 'all');
    expect(messages).toHaveLength(1);
    expect(messages[0]!.properties.messageId).toBe(idempotencyKeyOf('default', taskId));
    expect(JSON.parse(messages[0]!.body).taskId).toBe(taskId);
  });

  it('loses nothing when the worker is killed mid-publish: the next worker publishes again, under the same key', async () => {
    await warmUp();
    const taskId = await faults.killMidPublish({ exchange }, Number(new URL(faults.url).port));
    const messages = (await consumeRabbitWithNode(faults.url, queue, 'all')).filter(
      (m) => m.headers['task-id'] === taskId,
    );
    expect(messages.length).toBeGreaterThanOrEqual(1);
    for (const message of messages) {
      expect(message.properties.messageId).toBe(idempotencyKeyOf('default', taskId));
      expect(message.headers['idempotency-key']).toBe(idempotencyKeyOf('default', taskId));
    }
    console.info(`rabbitmq kill -9 mid-publish: ${messages.length} cop(ies) in the queue`);
  });
});
