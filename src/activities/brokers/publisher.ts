/**
 * One interface every broker module implements (redis-streams.ts, rabbitmq.ts, kafka.ts): publish one
 * message to a destination and resolve only when the broker confirmed the write. A fourth broker (NATS
 * JetStream, SQS) is one more module with this shape, a case in `createPublisher` and its tests
 * (docs/development.md, "adding a broker").
 */
import type { BrokerDeclaration } from '../../config/brokers.js';
import type { BrokerDelivery } from '../../shared/delivery.js';

/** What is published: the callback's body and its metadata, the same for every broker (docs/brokers.md). */
export interface BrokerMessage {
  /** The callback's body as JSON text: the bytes the signature covers. */
  body: string;
  /** The task's payload (Kafka may key messages by one of its fields). */
  payload: Readonly<Record<string, unknown>>;
  /**
   * Metadata in each broker's idiom (stream fields, AMQP headers, Kafka headers): `idempotency-key`,
   * `task-id`, `task-type`, `task-attempt`, `content-type` and the Standard Webhooks
   * `webhook-id`, `webhook-timestamp`, `webhook-signature`.
   */
  headers: Readonly<Record<string, string>>;
  idempotencyKey: string;
  taskType: string;
}

export interface BrokerPublisher {
  /** Publishes and resolves once the broker confirmed the write; rejects otherwise (every rejection is retried). */
  publish(message: BrokerMessage, target: BrokerDelivery): Promise<void>;
  /** Closes the connection (after in-flight publishes: the pool waits for them first). */
  close(): Promise<void>;
}

/** Builds a broker's publisher from its declaration; the connection opens on first use. */
export type PublisherFactory = (declaration: BrokerDeclaration) => BrokerPublisher;

/** A broker's TLS files, read when the connection opens. */
export interface TlsFiles {
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  servername?: string;
}
