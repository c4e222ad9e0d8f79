/**
 * ours-kafka: broker delivery to a Kafka topic (idempotent producer, acks=-1), a topic of its own with
 * one partition, read by one consumer of a consumer group with kafkajs: each fetched batch's handlers
 * run together, then its offsets are committed.
 */
import { Kafka, logLevel } from 'kafkajs';
import { bootstrapServers } from '../../src/activities/brokers/kafka.js';
import type { BrokerClient } from './ours-broker.js';

export const kafka: BrokerClient = {
  server: 'kafka',
  async consume(url, topic, handle) {
    const client = new Kafka({
      clientId: 'bench-consumer',
      brokers: bootstrapServers(url),
      logLevel: logLevel.NOTHING,
    });
    const admin = client.admin();
    await admin.connect();
    await admin.createTopics({
      topics: [{ topic, numPartitions: 1, replicationFactor: 1 }],
      waitForLeaders: true,
    });
    const consumer = client.consumer({ groupId: topic, maxWaitTimeInMs: 1000 });
    await consumer.connect();
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    // Reading once the group has been joined and the partition assigned.
    const joined = new Promise<void>((resolve) => consumer.on(consumer.events.GROUP_JOIN, () => resolve()));
    await consumer.run({
      eachBatch: async ({ batch }) => {
        await Promise.all(batch.messages.map((message) => handle(message.value?.toString('utf8') ?? '')));
      },
    });
    await joined;
    return {
      target: { topic },
      async stop() {
        await consumer.disconnect();
        await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
        await admin.disconnect();
      },
    };
  },
};
