/**
 * Kafka: an idempotent producer (`acks=-1`, at most one request in flight) sending to a topic, keyed
 * by a payload field or the idempotency key; `send` resolves when every in-sync replica has the
 * record. Within one producer session the broker drops a resent batch; across retries consumers
 * dedupe on the `idempotency-key` header.
 */
import { Kafka, logLevel, type Producer } from 'kafkajs';
import type { BrokerDeclaration } from '../../config/brokers.js';
import { passwordOf, tlsFilesOf } from './connection-secrets.js';
import type { BrokerMessage, BrokerPublisher } from './publisher.js';

/** `kafka://host:port,host:port` → the bootstrap servers. */
export function bootstrapServers(url: string): string[] {
  return url
    .replace(/^kafka:\/\//, '')
    .replace(/\/.*$/, '')
    .split(',')
    .filter((server) => server !== '');
}

export function kafkaPublisher(declaration: BrokerDeclaration): BrokerPublisher {
  let connected: Promise<Producer> | undefined;
  const connect = async (): Promise<Producer> => {
    const password = passwordOf(declaration);
    const tls = tlsFilesOf(declaration);
    const kafka = new Kafka({
      clientId: 'delayed-task-service',
      brokers: bootstrapServers(declaration.url),
      connectionTimeout: 5000,
      requestTimeout: 10_000,
      // The task's backoff retries; the client tries a little on its own within one attempt.
      retry: { retries: 2, initialRetryTime: 200 },
      logLevel: logLevel.NOTHING,
      ...(tls && { ssl: tls }),
      ...(declaration.username !== undefined &&
        password !== undefined && {
          sasl: { mechanism: 'scram-sha-512' as const, username: declaration.username, password },
        }),
    });
    const producer = kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      allowAutoTopicCreation: false,
    });
    producer.on(producer.events.DISCONNECT, () => {
      connected = undefined;
    });
    await producer.connect();
    return producer;
  };
  return {
    async publish(message: BrokerMessage, target): Promise<void> {
      const producer = await (connected ??= connect().catch((err: unknown) => {
        connected = undefined;
        throw err;
      }));
      const field = target.key !== undefined ? message.payload[target.key] : undefined;
      const key =
        field === undefined || field === null
          ? message.idempotencyKey
          : typeof field === 'string'
            ? field
            : JSON.stringify(field);
      await producer.send({
        topic: target.topic ?? '',
        acks: -1,
        messages: [{ key, value: message.body, headers: { ...message.headers } }],
      });
    },
    async close(): Promise<void> {
      const producer = await connected?.catch(() => undefined);
      connected = undefined;
      await producer?.disconnect().catch(() => undefined);
    },
  };
}
