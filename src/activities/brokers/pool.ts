/**
 * One publisher per declared broker in a worker process, opened on first use and reused by every
 * task (never a connection per task). `close` lets in-flight publishes finish, then closes them all:
 * the worker calls it after its Temporal workers have drained (src/worker/main.ts).
 */
import type { BrokerDeclaration, BrokerDeclarations } from '../../config/brokers.js';
import type { BrokerDelivery, BrokerKind } from '../../shared/delivery.js';
import { kafkaPublisher } from './kafka.js';
import type { BrokerMessage, BrokerPublisher, PublisherFactory } from './publisher.js';
import { rabbitmqPublisher } from './rabbitmq.js';
import { redisStreamsPublisher } from './redis-streams.js';

/** The module of each broker kind. */
export const PUBLISHERS: Readonly<Record<BrokerKind, PublisherFactory>> = {
  'redis-streams': redisStreamsPublisher,
  rabbitmq: rabbitmqPublisher,
  kafka: kafkaPublisher,
};

export class BrokerPool {
  private readonly publishers = new Map<string, BrokerPublisher>();
  private readonly inFlight = new Set<Promise<unknown>>();
  private closed = false;

  constructor(
    readonly declarations: BrokerDeclarations,
    private readonly factories: Readonly<Record<BrokerKind, PublisherFactory>> = PUBLISHERS,
  ) {}

  /** Publishes through the broker's one publisher; resolves when the broker confirmed. */
  publish(declaration: BrokerDeclaration, message: BrokerMessage, target: BrokerDelivery): Promise<void> {
    if (this.closed)
      return Promise.reject(new Error('the worker is stopping: broker connections are closed'));
    let publisher = this.publishers.get(declaration.name);
    if (!publisher) {
      publisher = this.factories[declaration.kind](declaration);
      this.publishers.set(declaration.name, publisher);
    }
    const publishing = publisher.publish(message, target);
    this.inFlight.add(publishing);
    const done = (): void => void this.inFlight.delete(publishing);
    publishing.then(done, done);
    return publishing;
  }

  /** Waits for in-flight publishes (their outcome is the activities'), then closes every connection. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.inFlight]);
    await Promise.allSettled([...this.publishers.values()].map((publisher) => publisher.close()));
    this.publishers.clear();
  }
}
