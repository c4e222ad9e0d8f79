/**
 * Kafka targets against a real broker in KRaft mode started by scripts/local-server.sh: a due task
 * is produced once (idempotent producer, acks=-1), keyed by a payload field or its idempotency key,
 * with the envelope's fields as headers, and read alike by Python's kafka-python and Node's kafkajs,
 * each in a consumer group of its own; a
 * topic the owner may not name is refused with 400 and nothing started.
 */
import { Kafka, logLevel } from 'kafkajs';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapServers } from '../../src/activities/brokers/kafka.js';
import { signWebhook } from '../../src/security/webhook-signature.js';
import { idempotencyKeyOf } from '../../src/shared/owner.js';
import { consumeWithPython, ensurePythonBrokers, localServer, writeBrokersFile } from '../helpers/brokers.js';
import { consumeKafkaWithNode } from '../helpers/broker-consume-node.js';
import { Harness } from '../helpers/harness.js';
import { uniqueId, waitForStatus } from '../helpers/tasks.js';
import { TEST_WEBHOOK_SECRET } from '../helpers/test-env.js';

const topic = `orders.${uniqueId('topic')}`;
const taskType = `broker.kafka.${uniqueId('t')}`;

let h: Harness;
let bootstrap: string;

beforeAll(async () => {
  const url = localServer('kafka');
  bootstrap = bootstrapServers(url).join(',');
  await ensurePythonBrokers();
  const admin = new Kafka({ brokers: bootstrapServers(url), logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  await admin.createTopics({
    topics: [{ topic, numPartitions: 1, replicationFactor: 1 }],
    waitForLeaders: true,
  });
  await admin.disconnect();
  h = await Harness.start({
    env: {
      BROKERS_FILE: writeBrokersFile({ log: { kind: 'kafka', url, owners: { default: ['orders.*'] } } }),
    },
  });
}, 600_000);

afterAll(async () => {
  await h?.stop();
});

describe('a Kafka target', () => {
  it('produces each task once when due, keyed, with signed headers; kafka-python and kafkajs read them', async () => {
    const keyed = uniqueId('kafka.keyed');
    const plain = uniqueId('kafka.plain');
    for (const [taskId, extra] of [
      [keyed, { key: 'customer' }],
      [plain, {}],
    ] as const) {
      const created = await h.create({
        taskType,
        taskId,
        payload: { customer: 'c-17' },
        delaySeconds: 1,
        delivery: { mode: 'broker', broker: 'log', topic, ...extra },
      });
      expect(created.status).toBe(201);
    }
    const done = await waitForStatus(h, keyed, 'SUCCEEDED', 60_000);
    await waitForStatus(h, plain, 'SUCCEEDED', 60_000);

    const consumed = await consumeWithPython('kafka', [bootstrap, topic, uniqueId('group')], 2, 20);
    expect(consumed).toHaveLength(2);
    const byTask = new Map(consumed.map((m) => [JSON.parse(m.body).taskId as string, m]));
    expect(byTask.get(keyed)!.properties.key).toBe('c-17');
    expect(byTask.get(plain)!.properties.key).toBe(idempotencyKeyOf('default', plain));
    const message = byTask.get(keyed)!;
    expect(JSON.parse(message.body)).toEqual({
      taskId: keyed,
      taskType,
      payload: { customer: 'c-17' },
      payloadVersion: 1,
      executeAt: done.executeAt,
      attempt: 1,
      traceId: null,
    });
    expect(message.headers).toMatchObject({
      'idempotency-key': idempotencyKeyOf('default', keyed),
      'task-id': keyed,
      'task-type': taskType,
      'task-attempt': '1',
    });
    expect(message.headers['webhook-signature']).toBe(
      signWebhook(
        [TEST_WEBHOOK_SECRET],
        message.headers['webhook-id']!,
        Number(message.headers['webhook-timestamp']),
        message.body,
      ),
    );
    // A consumer group in Node reads the same two records, and verifies them with Standard Webhooks.
    const read = await consumeKafkaWithNode(bootstrap.split(','), topic, uniqueId('group'), 2);
    expect(sortedByBody(read)).toEqual(sortedByBody(consumed));
    for (const { body, headers } of read) {
      expect(() =>
        new Webhook(TEST_WEBHOOK_SECRET).verify(body, {
          'webhook-id': headers['webhook-id']!,
          'webhook-timestamp': headers['webhook-timestamp']!,
          'webhook-signature': headers['webhook-signature']!,
        }),
      ).not.toThrow();
    }
  });

  it('refuses a topic the owner may not name with 400, and starts nothing', async () => {
    const taskId = uniqueId('kafka.refused');
    const { status, raw } = await h.create({
      taskType,
      taskId,
      payload: {},
      delaySeconds: 0,
      delivery: { mode: 'broker', broker: 'log', topic: 'billing.ledger' },
    });
    expect(status).toBe(400);
    expect((raw as { error: { details: unknown[] } }).error.details).toContainEqual(
      expect.objectContaining({ field: 'delivery.topic' }),
    );
    expect((await h.get(taskId)).status).toBe(404);
  });
});

function sortedByBody<T extends { body: string }>(messages: T[]): T[] {
  return [...messages].sort((a, b) => a.body.localeCompare(b.body));
}
