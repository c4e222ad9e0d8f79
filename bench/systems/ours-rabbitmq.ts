/**
 * ours-rabbitmq: broker delivery to a RabbitMQ exchange (publisher confirms, persistent), routed to a
 * durable queue of its own, read by one consumer with amqplib (prefetch 256, manual ack once the
 * handler has run).
 */
import amqp from 'amqplib';
import type { BrokerClient } from './ours-broker.js';

const PREFETCH = 256;

export const rabbitmq: BrokerClient = {
  server: 'rabbitmq',
  async consume(url, name, handle) {
    const connection = await amqp.connect(url);
    const channel = await connection.createChannel();
    // One direct exchange and one durable queue, both named `name`, bound by the routing key `name`.
    await channel.assertExchange(name, 'direct', { durable: true });
    await channel.assertQueue(name, { durable: true });
    await channel.bindQueue(name, name, name);
    await channel.prefetch(PREFETCH);
    const { consumerTag } = await channel.consume(
      name,
      (message) => {
        if (!message) return;
        handle(message.content.toString('utf8')).then(
          () => channel.ack(message),
          (err: unknown) => {
            console.error(`ours-rabbitmq consumer: ${err instanceof Error ? err.message : String(err)}`);
            channel.nack(message);
          },
        );
      },
      { noAck: false },
    );
    return {
      target: { exchange: name, routingKey: name },
      async stop() {
        await channel.cancel(consumerTag);
        await channel.deleteQueue(name);
        await channel.deleteExchange(name);
        await connection.close();
      },
    };
  },
};
