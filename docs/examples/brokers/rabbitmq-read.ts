/**
 * Reads one due task from RabbitMQ, as a consumer service would: declares a durable topic exchange
 * and a durable queue bound to it (every routing key), waits for one message, prints its properties,
 * headers and body, acks it and exits:
 * `node --import tsx docs/examples/brokers/rabbitmq-read.ts AMQP_URL EXCHANGE QUEUE`.
 * Start it before the task is due: the service publishes with `mandatory`, so a message no queue is
 * bound for yet is returned and the attempt retried.
 */
import amqp from 'amqplib';

const [url, exchange, queue] = process.argv.slice(2);
if (!url || !exchange || !queue) throw new Error('usage: rabbitmq-read.ts AMQP_URL EXCHANGE QUEUE');

const connection = await amqp.connect(url);
const channel = await connection.createChannel();
await channel.assertExchange(exchange, 'topic', { durable: true });
await channel.assertQueue(queue, { durable: true });
await channel.bindQueue(queue, exchange, '#');
console.error(`waiting on queue ${queue} (bound to exchange ${exchange})...`);

const message = await new Promise<amqp.ConsumeMessage>((resolve) => {
  void channel.consume(queue, (msg) => msg && resolve(msg), { noAck: false });
});
const { messageId, type, deliveryMode, headers } = message.properties;
console.log(`${queue}: message_id ${messageId}, type ${type}, delivery_mode ${deliveryMode}`);
for (const [name, value] of Object.entries(headers ?? {})) console.log(`${name}: ${String(value)}`);
console.log(`body: ${message.content.toString('utf8')}`);
// Done with it: a consumer acks once its work is committed (deduplicating on message_id).
channel.ack(message);
await channel.close();
await connection.close();
