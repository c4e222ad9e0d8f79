/**
 * RabbitMQ: publish on a confirm channel to an exchange with a routing key, `persistent` (delivery
 * mode 2), `mandatory`, message id = the idempotency key. The broker's ack is the confirm; a message
 * no queue took is returned before its ack, and counts as a failed publish (retried).
 */
import amqp, { type ConfirmChannel, type ChannelModel, type ConsumeMessage } from 'amqplib';
import type { BrokerDeclaration } from '../../config/brokers.js';
import { passwordOf, tlsFilesOf } from './connection-secrets.js';
import type { BrokerMessage, BrokerPublisher } from './publisher.js';

interface Open {
  connection: ChannelModel;
  channel: ConfirmChannel;
  /** Message ids returned unroutable since they were published. */
  returned: Set<string>;
}

export function rabbitmqPublisher(declaration: BrokerDeclaration): BrokerPublisher {
  let open: Promise<Open> | undefined;
  const connect = async (): Promise<Open> => {
    const url = new URL(declaration.url);
    const password = passwordOf(declaration);
    if (declaration.username !== undefined) url.username = encodeURIComponent(declaration.username);
    if (password !== undefined) url.password = encodeURIComponent(password);
    const tls = tlsFilesOf(declaration);
    const connection = await amqp.connect(url.toString(), { timeout: 5000, ...tls });
    const channel = await connection.createConfirmChannel();
    const returned = new Set<string>();
    channel.on('return', (msg: ConsumeMessage) => {
      if (typeof msg.properties.messageId === 'string') returned.add(msg.properties.messageId);
    });
    // A lost connection or channel: the next publish opens a new one.
    const forget = (): void => {
      open = undefined;
    };
    connection.on('close', forget);
    connection.on('error', forget);
    channel.on('close', forget);
    channel.on('error', forget);
    return { connection, channel, returned };
  };
  return {
    async publish(message: BrokerMessage, target): Promise<void> {
      const current = (open ??= connect().catch((err: unknown) => {
        open = undefined;
        throw err;
      }));
      const { channel, returned } = await current;
      const { 'content-type': contentType, ...headers } = message.headers;
      const messageId = message.idempotencyKey;
      returned.delete(messageId);
      await new Promise<void>((resolve, reject) => {
        channel.publish(
          target.exchange ?? '',
          target.routingKey ?? message.taskType,
          Buffer.from(message.body),
          {
            persistent: true,
            mandatory: true,
            messageId,
            contentType,
            type: message.taskType,
            timestamp: Math.floor(Date.now() / 1000),
            headers,
          },
          (err: unknown) => (err ? reject(err instanceof Error ? err : new Error(String(err))) : resolve()),
        );
      });
      if (returned.delete(messageId)) {
        throw new Error(
          `unroutable: exchange ${JSON.stringify(target.exchange ?? '')} routed key ${target.routingKey ?? message.taskType} to no queue`,
        );
      }
    },
    async close(): Promise<void> {
      const current = await open?.catch(() => undefined);
      open = undefined;
      await current?.connection.close().catch(() => undefined);
    },
  };
}
