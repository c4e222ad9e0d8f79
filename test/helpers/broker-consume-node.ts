/**
 * Reads what a broker task published with the Node clients a consumer service would use (amqplib,
 * kafkajs: the ones this service publishes with), in the shape `consumeWithPython` returns, so a test
 * can check that consumers in two languages read the same message.
 */
import amqp from 'amqplib';
import { Kafka, logLevel } from 'kafkajs';
import type { ConsumedMessage } from './brokers.js';

const text = (value: unknown): string =>
  Buffer.isBuffer(value) ? value.toString('utf8') : typeof value === 'string' ? value : String(value);

/**
 * RabbitMQ: a consumer on `queue` that acks each message; up to `count`, or what arrives in
 * `timeoutS`. `'all'`: the messages the queue holds now (its depth, as the broker reports it).
 */
export async function consumeRabbitWithNode(
  url: string,
  queue: string,
  count: number | 'all',
  timeoutS = 10,
): Promise<ConsumedMessage[]> {
  const connection = await amqp.connect(url);
  try {
    const channel = await connection.createChannel();
    const wanted = count === 'all' ? (await channel.checkQueue(queue)).messageCount : count;
    const out: ConsumedMessage[] = [];
    if (wanted > 0)
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, timeoutS * 1000);
        channel
          .consume(queue, (msg) => {
            if (!msg) return;
            const { properties } = msg;
            out.push({
              body: msg.content.toString('utf8'),
              headers: Object.fromEntries(
                Object.entries(properties.headers ?? {}).map(([name, value]) => [name, text(value)]),
              ),
              properties: {
                messageId: properties.messageId,
                deliveryMode: properties.deliveryMode,
                contentType: properties.contentType,
                type: properties.type,
              },
            });
            channel.ack(msg);
            if (out.length >= wanted) {
              clearTimeout(timer);
              resolve();
            }
          })
          .catch(reject);
      });
    await channel.close();
    return out;
  } finally {
    await connection.close();
  }
}

/** Kafka: a consumer group reading `topic` from the earliest offset; up to `count`, or what arrives in `timeoutS`. */
export async function consumeKafkaWithNode(
  brokers: string[],
  topic: string,
  group: string,
  count: number,
  timeoutS = 20,
): Promise<ConsumedMessage[]> {
  const consumer = new Kafka({ brokers, logLevel: logLevel.NOTHING }).consumer({ groupId: group });
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    const out: ConsumedMessage[] = [];
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, timeoutS * 1000);
      consumer
        .run({
          eachMessage: async ({ message }) => {
            out.push({
              body: message.value?.toString('utf8') ?? '',
              headers: Object.fromEntries(
                Object.entries(message.headers ?? {}).map(([name, value]) => [name, text(value)]),
              ),
              properties: { key: message.key?.toString('utf8') ?? null },
            });
            if (out.length >= count) {
              clearTimeout(timer);
              resolve();
            }
          },
        })
        .catch(reject);
    });
    return out;
  } finally {
    await consumer.disconnect();
  }
}
