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

/**
 * A delivery target other than the HTTP callback. One member per target; a broker target joins the
 * union as `{ mode: 'broker', broker, ... }` with its module in src/workflows/delivery.ts.
 */
export type Delivery = PullDelivery;
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
