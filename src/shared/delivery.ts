/**
 * How a due task reaches its service: the delivery target a task's spec names, and the envelope every
 * target's attempt receives. A task without `delivery` is called back over HTTP (`callbackUrl`), as
 * every input recorded before delivery targets existed. Pure and workflow-safe: no Node built-ins.
 */

/**
 * A pull task (docs/workers.md): when due, it waits on a pull queue of its owner until a worker
 * leases it through the API; ack, nack, extend and release settle the lease.
 */
export interface PullDelivery {
  mode: 'pull';
  /** The pull queue: the task type by default; a task type's characters. */
  queue: string;
  /** The lease's length: the attempt's heartbeat timeout, renewed by `extend`. */
  leaseSeconds: number;
}

/** Kinds of broker an operator can declare (src/config/brokers.ts); one publisher module each. */
export const BROKER_KINDS = ['redis-streams', 'rabbitmq', 'kafka'] as const;
export type BrokerKind = (typeof BROKER_KINDS)[number];

/**
 * A broker task (docs/brokers.md): when due, its envelope is published to a destination of a broker
 * the operator declared for the task's owner; the attempt succeeds when the broker confirmed the write.
 * The destination fields are the broker kind's: `stream` (and `maxLen`) for Redis Streams, `exchange`
 * and `routingKey` for RabbitMQ, `topic` (and `key`) for Kafka.
 */
export interface BrokerDelivery {
  mode: 'broker';
  /** The declared broker's name (never a host: connections are configuration). */
  broker: string;
  /** The broker's kind at create, for views and the attempt's summary; the worker reads its own declaration. */
  kind: BrokerKind;
  /** Redis Streams: the stream XADD writes to. */
  stream?: string;
  /** Redis Streams: `MAXLEN ~ maxLen` on each XADD. */
  maxLen?: number;
  /** RabbitMQ: the exchange published to (`''` is the default exchange). */
  exchange?: string;
  /** RabbitMQ: the routing key; the task type when absent. */
  routingKey?: string;
  /** Kafka: the topic. */
  topic?: string;
  /** Kafka: the payload field whose value is the message key; the idempotency key when absent. */
  key?: string;
}

/** A delivery target other than the HTTP callback. One member per target, its module in src/workflows/delivery.ts. */
export type Delivery = PullDelivery | BrokerDelivery;

/** The destination a broker task names: its stream, exchange or topic. */
export function brokerDestination(delivery: BrokerDelivery): string {
  return delivery.stream ?? delivery.exchange ?? delivery.topic ?? '';
}
export type DeliveryMode = Delivery['mode'] | 'callback';

/** The target of a task: `callback` when its spec names none. */
export function deliveryModeOf(spec: { delivery?: Delivery | undefined }): DeliveryMode {
  return spec.delivery?.mode ?? 'callback';
}

/**
 * One attempt's input, the same for every target: the callback's body (its fields are the callback
 * contract's), the key a receiver or worker deduplicates on, and what the HTTP target needs to send.
 */
export interface DeliveryEnvelope {
  taskId: string;
  /**
   * Owner of the task (src/shared/owner.ts). Absent in attempts scheduled before owners existed: read
   * from the workflow id (`<owner>/<taskId>`, else `default`).
   */
  owner?: string;
  /** The task's idempotency key; absent in attempts of tasks created before it was: the task id. */
  idempotencyKey?: string;
  taskType: string;
  payload: Record<string, unknown>;
  payloadVersion: number;
  executeAt: string;
  attempt: number;
  traceId: string | null;
  /** The HTTP target's URL; absent for any other target. */
  callbackUrl?: string;
  /** Limit of one callback attempt (the HTTP target's). */
  timeoutMs: number;
  /** Only in the attempts of a schedule's occurrence: the schedule and the nominal time it runs for. */
  schedule?: { scheduleId: string; scheduledAt: string };
}

/** What a successful attempt reports: the receiver's HTTP status for a callback, nothing for a lease. */
export interface DeliveryResult {
  statusCode?: number;
}

/**
 * Activity type of a pull task's attempt. No worker registers it: the API's lease route takes its
 * tasks from the pull queue and answers them with ack, nack or release. Never rename it: tasks
 * waiting on a pull queue carry it.
 */
export const PULL_ACTIVITY = 'awaitLease';

/** The pull attempt as the workflow calls it (the activity has no implementation of ours). */
export interface PullActivities {
  [PULL_ACTIVITY]: (envelope: DeliveryEnvelope) => Promise<DeliveryResult>;
}

/**
 * Activity type of a broker task's attempt: one publish, confirmed by the broker. Never rename it:
 * tasks due later carry it.
 */
export const BROKER_ACTIVITY = 'publishToBroker';

/** What a broker attempt receives: the envelope and the task's broker target. */
export interface BrokerPublishInput extends DeliveryEnvelope {
  delivery: BrokerDelivery;
}

/** The broker attempt as the workflow calls it (src/activities/brokers/publish.ts implements it). */
export interface BrokerActivities {
  [BROKER_ACTIVITY]: (input: BrokerPublishInput) => Promise<DeliveryResult>;
}
