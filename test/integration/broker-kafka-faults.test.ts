/**
 * Kafka faults, against a Kafka broker of this file's own (scripts/local-server.sh kafka@broker-faults:
 * stopped and frozen here, other files' broker untouched) and a worker run as its own process, as
 * deployed (the flows in ../helpers/broker-fault-flows.ts):
 * - the broker down: each attempt fails, retried with the task type's backoff, then dead-lettered;
 *   replayed once the broker is back, the topic holds the record once; the worker's /metrics counted
 *   every failure and the publish, and timed each;
 * - the worker killed (-9) mid-publish: the broker frozen, the produce request waits unread in its
 *   socket; a new worker produces again, the task succeeds, and every copy carries the task's key.
 * The local broker starts with an empty log each time (its quorum is new): the test creates its
 * topic again after the restart, as an operator's topic would still be there.
 */
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapServers } from '../../src/activities/brokers/kafka.js';
import { idempotencyKeyOf } from '../../src/shared/owner.js';
import { consumeKafkaWithNode } from '../helpers/broker-consume-node.js';
import { BrokerFaults } from '../helpers/broker-fault-flows.js';
import { writeBrokersFile } from '../helpers/brokers.js';
import { uniqueId } from '../helpers/tasks.js';

const faults = new BrokerFaults({
  kind: 'kafka',
  taskType: `broker.kafka.faults.${uniqueId('t')}`,
  brokersFile: (url) => writeBrokersFile({ down: { kind: 'kafka', url, owners: { default: ['faults.*'] } } }),
});
/** The broker's bootstrap servers, once started. */
const brokers = () => bootstrapServers(faults.url);

beforeAll(() => faults.start(), 600_000);
afterAll(() => faults.stop());

const kafka = () => new Kafka({ brokers: brokers(), logLevel: logLevel.NOTHING });

async function createTopic(topic: string): Promise<void> {
  const admin = kafka().admin();
  await admin.connect();
  try {
    await admin.createTopics({
      topics: [{ topic, numPartitions: 1, replicationFactor: 1 }],
      waitForLeaders: true,
    });
  } finally {
    await admin.disconnect();
  }
}

/** The records the topic (one partition) holds: its high watermark. */
async function recordsIn(topic: string): Promise<number> {
  const admin = kafka().admin();
  await admin.connect();
  try {
    const [partition] = await admin.fetchTopicOffsets(topic);
    return Number(partition!.high);
  } finally {
    await admin.disconnect();
  }
}

/** A topic of the test's own, with a record produced to it: the worker's producer knows the topic. */
async function warmTopic(name: string): Promise<string> {
  const topic = `faults.${uniqueId(name)}`;
  await createTopic(topic);
  await faults.warmUp({ topic });
  return topic;
}

describe('Kafka faults', () => {
  it('retries a broker that is down with the backoff, dead-letters, and delivers once on replay; /metrics counts each', async () => {
    const topic = await warmTopic('down');
    const taskId = await faults.downThenReplay({ topic }, () => createTopic(topic));
    expect(await recordsIn(topic)).toBe(1);
    const [record] = await consumeKafkaWithNode(brokers(), topic, uniqueId('group'), 1);
    expect(record!.properties.key).toBe(idempotencyKeyOf('default', taskId));
    expect(record!.headers['idempotency-key']).toBe(idempotencyKeyOf('default', taskId));
    expect(JSON.parse(record!.body).taskId).toBe(taskId);
  });

  it('loses nothing when the worker is killed mid-publish: the next worker produces again, under the same key', async () => {
    const topic = await warmTopic('kill');
    const taskId = await faults.killMidPublish({ topic }, Number(brokers()[0]!.split(':')[1]));
    // The warm-up's record, then the task's copies.
    const held = await recordsIn(topic);
    expect(held).toBeGreaterThanOrEqual(2);
    const copies = (await consumeKafkaWithNode(brokers(), topic, uniqueId('group'), held)).filter(
      (m) => m.headers['task-id'] === taskId,
    );
    expect(copies).toHaveLength(held - 1);
    for (const copy of copies) {
      expect(copy.properties.key).toBe(idempotencyKeyOf('default', taskId));
      expect(copy.headers['idempotency-key']).toBe(idempotencyKeyOf('default', taskId));
    }
    console.info(`kafka kill -9 mid-publish: ${copies.length} cop(ies) in the topic`);
  });
});
