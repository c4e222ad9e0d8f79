/**
 * RabbitMQ: publish on a confirm channel to an exchange with a routing key, `persistent` (delivery
 * mode 2), `mandatory`, message id = the idempotency key. The broker's ack is the confirm; a message
 * no queue took is returned before its ack, and counts as a failed publish (retried).
 *
 * One connection per declared broker, and on it one confirm channel per exchange: the broker closes
 * a channel on a publish to an exchange that does not exist (any name an owner's prefix allows), and
 * fails every publish in flight on it. With a channel of its own, such a publish fails only those to
 * the same exchange, with the broker's reason, not other tasks' (other owners') publishes.
 */
import amqp, { type ConfirmChannel, type ChannelModel, type ConsumeMessage } from 'amqplib';
import type { BrokerDeclaration } from '../../config/brokers.js';
import { passwordOf, tlsFilesOf } from './connection-secrets.js';
import type { BrokerMessage, BrokerPublisher } from './publisher.js';

interface Open {
  connection: ChannelModel;
  /** The confirm channel of each exchange published to, opened on first use. */
  channels: Map<string, Promise<ExchangeChannel>>;
  /** The connection is gone: the next publish opens a new one. */
  lost: boolean;
}

interface ExchangeChannel {
  channel: ConfirmChannel;
  /** Message ids returned unroutable since they were published. */
  returned: Set<string>;
  /** Why the broker closed the channel (`404 NOT_FOUND - no exchange ...`), once it has. */
  closedBy?: Error;
  closed: boolean;
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
    const state: Open = { connection, channels: new Map(), lost: false };
    const lose = (): void => {
      state.lost = true;
    };
    connection.on('close', lose);
    connection.on('error', lose);
    return state;
  };
  /** The open connection, or a new one when the last was lost (one try: then the attempt fails). */
  const opened = async (retry = true): Promise<Open> => {
    const opening = (open ??= connect().catch((err: unknown) => {
      open = undefined;
      throw err;
    }));
    const current = await opening;
    if (!current.lost) return current;
    // Only this connection is forgotten, never one a concurrent publish has opened since.
    if (open === opening) open = undefined;
    if (!retry) throw new Error('the connection to the broker closed');
    return opened(false);
  };
  /** The exchange's channel on `current`, or a new one when the broker closed the last. */
  const channelOf = async (current: Open, exchange: string, retry = true): Promise<ExchangeChannel> => {
    let opening = current.channels.get(exchange);
    if (!opening) {
      const created = openChannel(current.connection);
      const forget = (): void => {
        if (current.channels.get(exchange) === created) current.channels.delete(exchange);
      };
      created.then((channel) => channel.channel.once('close', forget), forget);
      current.channels.set(exchange, created);
      opening = created;
    }
    const channel = await opening;
    if (!channel.closed) return channel;
    if (!retry) throw channel.closedBy ?? new Error('the channel to the broker closed');
    return channelOf(current, exchange, false);
  };
  return {
    async publish(message: BrokerMessage, target): Promise<void> {
      const exchange = target.exchange ?? '';
      const current = await opened();
      const exchangeChannel = await channelOf(current, exchange);
      const { channel, returned } = exchangeChannel;
      const { 'content-type': contentType, ...headers } = message.headers;
      const messageId = message.idempotencyKey;
      returned.delete(messageId);
      await new Promise<void>((resolve, reject) => {
        channel.publish(
          exchange,
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
          // The broker's reason when it closed the channel, rather than amqplib's "channel closed".
          (err: unknown) =>
            err
              ? reject(exchangeChannel.closedBy ?? (err instanceof Error ? err : new Error(String(err))))
              : resolve(),
        );
      });
      if (returned.delete(messageId)) {
        throw new Error(
          `unroutable: exchange ${JSON.stringify(exchange)} routed key ${target.routingKey ?? message.taskType} to no queue`,
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

async function openChannel(connection: ChannelModel): Promise<ExchangeChannel> {
  const channel = await connection.createConfirmChannel();
  const state: ExchangeChannel = { channel, returned: new Set<string>(), closed: false };
  channel.on('return', (msg: ConsumeMessage) => {
    if (typeof msg.properties.messageId === 'string') state.returned.add(msg.properties.messageId);
  });
  // Emitted before 'close' when the broker closes the channel; the next publish opens another.
  channel.on('error', (err: Error) => {
    state.closedBy = err;
  });
  channel.on('close', () => {
    state.closed = true;
  });
  return state;
}
