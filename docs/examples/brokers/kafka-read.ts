/**
 * Reads one due task from Kafka, as a consumer service would: joins consumer group GROUP on TOPIC
 * (from the earliest offset when the group is new; the topic is created when missing), waits for one
 * record, prints its key, headers and value, commits its offset and exits:
 * `node --import tsx docs/examples/brokers/kafka-read.ts KAFKA_URL TOPIC GROUP`, where KAFKA_URL is
 * `kafka://host:port[,host:port]` as a broker declaration writes it.
 */
import { Kafka, logLevel, type KafkaMessage } from 'kafkajs';

const [url, topic, group] = process.argv.slice(2);
if (!url || !topic || !group) throw new Error('usage: kafka-read.ts KAFKA_URL TOPIC GROUP');

const kafka = new Kafka({ brokers: url.replace(/^kafka:\/\//, '').split(','), logLevel: logLevel.NOTHING });
// The topic first, when missing (the service's first publish would create it, too late for a
// subscriber: kafkajs refuses to subscribe to a topic the broker does not have yet).
const admin = kafka.admin();
await admin.connect();
await admin.createTopics({ topics: [{ topic }], waitForLeaders: true });
await admin.disconnect();
const consumer = kafka.consumer({ groupId: group });
await consumer.connect();
await consumer.subscribe({ topic, fromBeginning: true });
console.error(`waiting on topic ${topic} (group ${group})...`);

const record = await new Promise<{ partition: number; message: KafkaMessage }>((resolve) => {
  void consumer.run({
    autoCommit: false,
    eachMessage: async ({ partition, message }) => resolve({ partition, message }),
  });
});
const { partition, message } = record;
console.log(`${topic}[${partition}]@${message.offset}: key ${message.key?.toString('utf8')}`);
for (const [name, value] of Object.entries(message.headers ?? {})) console.log(`${name}: ${String(value)}`);
console.log(`body: ${message.value?.toString('utf8')}`);
// Done with it: commit the next offset once the work is committed (deduplicating on the key).
await consumer.commitOffsets([{ topic, partition, offset: String(Number(message.offset) + 1) }]);
await consumer.disconnect();
