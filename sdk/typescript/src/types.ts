/** The resources as the SDK returns them: wire names, times parsed to `Date`. */
import type { Payload } from './checks.js';
import type { DelayedTaskError } from './errors.js';

/** The task statuses, in the order of a task's life (a runtime list the OpenAPI test compares). */
export const TASK_STATUSES = ['SCHEDULED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED'] as const;

/** SCHEDULED, RUNNING (callback in progress or waiting to retry), SUCCEEDED, FAILED (dead letter), CANCELLED. */
export type TaskStatus = (typeof TASK_STATUSES)[number];

export interface TaskError {
  message: string;
  /** HTTP status the callback answered, when it answered. */
  statusCode?: number;
}

/**
 * How one callback attempt ended: SUCCEEDED (2xx), RETRYABLE_ERROR (408, 425, 429, 5xx, timeout,
 * network), PERMANENT_ERROR (other 4xx, 3xx, refused), CANCELLED (cancelled in flight).
 */
export const ATTEMPT_OUTCOMES = ['SUCCEEDED', 'RETRYABLE_ERROR', 'PERMANENT_ERROR', 'CANCELLED'] as const;

export type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number];

/** One callback attempt of the current run. */
export interface TaskAttempt {
  /** 1 for the first attempt. */
  attempt: number;
  startedAt: Date;
  finishedAt: Date;
  outcome: AttemptOutcome;
  /** HTTP status the callback answered, when it answered. */
  statusCode?: number;
  /** Why the attempt failed. */
  error?: string;
}

/**
 * How a due task is delivered instead of a callback (a task names one or the other):
 * `{mode: 'pull', queue?, leaseSeconds?}` waits on a pull queue (default: its task type) until a
 * worker leases it (`lease`, `PullWorker`); `{mode: 'broker', broker, ...}` is published to a broker
 * the operator declared (Redis Streams `stream`/`maxLen`, RabbitMQ `exchange`/`routingKey`, Kafka
 * `topic`/`key`). A task read back may carry a mode this version does not know: it passes through.
 */
export type Delivery =
  | { mode: 'pull'; queue?: string; leaseSeconds?: number }
  | {
      mode: 'broker';
      broker: string;
      stream?: string;
      maxLen?: number;
      exchange?: string;
      routingKey?: string;
      topic?: string;
      key?: string;
      /** On a task read back: the broker's kind (`redis-streams`, `rabbitmq`, `kafka`). */
      kind?: string;
    };

export interface Task {
  taskId: string;
  /** Team or service the task belongs to: the owner of the API key that created it. */
  owner: string;
  taskType: string;
  status: TaskStatus;
  executeAt: Date;
  createdAt: Date;
  /** Absent only from the answers of cancel, reschedule and replay to a key without `tasks:read`. */
  payload?: Payload;
  payloadVersion: number;
  /** Absent for a pull or broker task, and from the answers of cancel, reschedule and replay to a key without `tasks:read`. */
  callbackUrl?: string;
  /** A pull or broker task's delivery (the service fills in the defaults); absent for a callback task. */
  delivery?: Delivery;
  /** While a worker holds a pull task: when its lease runs out unless extended, and who holds it. */
  lease?: { expiresAt: Date; workerIdentity: string | null };
  maxRetries: number;
  timeoutMs: number;
  traceId: string | null;
  priority: number;
  /** Callback attempts made so far. */
  attempts: number;
  lastError: TaskError | null;
  /** When the next retry is due, while retrying. */
  nextAttemptAt: Date | null;
  firedAt: Date | null;
  completedAt: Date | null;
  /** The newest 50 attempts of the current run, oldest first; absent only from an older worker. */
  attemptHistory?: TaskAttempt[];
}

/** @deprecated since 0.4.0, removed in 0.5.0: cancel, reschedule and replay answer a {@link Task}. */
export type TaskActionAnswer = Task;

/** @deprecated since 0.4.0, removed in 0.5.0: use {@link TaskAttempt}. */
export type Attempt = TaskAttempt;

/** A list entry: the task without its payload. */
export interface TaskSummary {
  taskId: string;
  owner: string;
  taskType: string;
  status: TaskStatus;
  executeAt: Date | null;
  createdAt: Date | null;
  callbackUrl: string | null;
  /** `pull` or `broker` for a task without a callback (another mode passes through); absent for a callback task. */
  deliveryMode?: 'pull' | 'broker' | (string & {});
  priority: number | null;
  attempts: number;
  lastError: TaskError | null;
  completedAt: Date | null;
}

export interface TaskPage {
  tasks: TaskSummary[];
  /** Pass as `pageToken` for the next page; null on the last. */
  nextPageToken: string | null;
}

export interface CreateTaskRequest {
  taskType: string;
  payload: Payload;
  /** Seconds from now (fractions allowed, sent with millisecond precision). Exactly one of this or `executeAt`. */
  delaySeconds?: number;
  /** A `Date`, or an RFC 3339 string with an offset (sent as given). */
  executeAt?: Date | string;
  /** Where the callback goes. Not with `delivery`; may be left out when the task type's policy has one. */
  callbackUrl?: string;
  /** Pull or broker delivery instead of a callback. Not with `callbackUrl`. */
  delivery?: Delivery;
  /** Generated (UUID v4) when absent, and reused on every retry of this create. */
  taskId?: string;
  maxRetries?: number;
  timeoutMs?: number;
  payloadVersion?: number;
  traceId?: string;
  priority?: number;
}

export interface CreateTaskResult {
  task: Task;
  /** false when the service already had this task id with the same spec (idempotent repeat). */
  created: boolean;
}

/**
 * One entry of `createTasks`, in input order: the created or existing task, or the error a single
 * `create` of that item would have thrown (status 0 when refused before sending). `taskId` is the
 * id sent, generated when the input had none (for an item refused before sending, the input's own,
 * if any): re-send an item that failed with `UNAVAILABLE` under the same id.
 */
export type CreateTasksItem =
  | { index: number; taskId: string; created: boolean; task: Task; error?: undefined }
  | { index: number; taskId?: string; error: DelayedTaskError; created?: undefined; task?: undefined };

/** The filters of `list` and `listAll` (the API's query parameters); unset ones are not sent. */
export interface ListTasksRequest {
  status?: TaskStatus;
  taskType?: string;
  /** Only tasks whose id starts with this (case-sensitive). */
  idPrefix?: string;
  /** Admin keys only: this owner's tasks (an admin key lists every owner's by default). */
  owner?: string;
  /** Only tasks due at or after this time: a `Date` or an RFC 3339 string with an offset, sent as UTC. */
  dueAfter?: Date | string;
  /** Only tasks due before this time: a `Date` or an RFC 3339 string with an offset, sent as UTC. */
  dueBefore?: Date | string;
  /** 1 to 1000. @defaultValue 50 (the service's) */
  pageSize?: number;
  /** `nextPageToken` of the previous page. */
  pageToken?: string;
}

export type RescheduleRequest =
  { delaySeconds: number; executeAt?: never } | { executeAt: Date | string; delaySeconds?: never };

export interface ReplayRequest {
  payload?: Payload;
  payloadVersion?: number;
  maxRetries?: number;
  delaySeconds?: number;
  executeAt?: Date | string;
}

/** The fields of a task or summary that are RFC 3339 times on the wire (`Date`s here). */
export const TIME_FIELDS = ['executeAt', 'createdAt', 'nextAttemptAt', 'firedAt', 'completedAt'] as const;

/** The times of an attempt of `attemptHistory`. */
export const ATTEMPT_TIME_FIELDS = ['startedAt', 'finishedAt'] as const;

/** Parses the RFC 3339 times of a task or summary from the wire into `Date`s (null stays null). */
export function withDates<T>(wire: Record<string, unknown>): T {
  const out = dated(wire, TIME_FIELDS);
  if (out.lease && typeof out.lease === 'object') {
    out.lease = dated(out.lease as Record<string, unknown>, ['expiresAt']);
  }
  if (Array.isArray(out.attemptHistory)) {
    out.attemptHistory = out.attemptHistory.map((attempt: Record<string, unknown>) =>
      dated(attempt, ATTEMPT_TIME_FIELDS),
    );
  }
  return out as T;
}

function dated(wire: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = { ...wire };
  for (const field of fields) {
    const value = out[field];
    if (typeof value === 'string') out[field] = new Date(value);
  }
  return out;
}

/** @deprecated since 0.4.0, removed in 0.5.0: use {@link CreateTaskRequest}. */
export type CreateTaskInput = CreateTaskRequest;
/** @deprecated since 0.4.0, removed in 0.5.0: use {@link ListTasksRequest}. */
export type ListTasksQuery = ListTasksRequest;
/** @deprecated since 0.4.0, removed in 0.5.0: use {@link RescheduleRequest}. */
export type RescheduleInput = RescheduleRequest;
/** @deprecated since 0.4.0, removed in 0.5.0: use {@link ReplayRequest}. */
export type ReplayInput = ReplayRequest;
