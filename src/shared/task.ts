/**
 * The task as the workflow, the activities and the API share it. Pure types and functions:
 * imported by workflow code, so no Node built-ins and no I/O here.
 */
import type { RetryPolicy } from './backoff.js';
import { ATTEMPT_HISTORY_LIMIT } from './constants.js';
import type { Delivery } from './delivery.js';
import { DEFAULT_OWNER } from './owner.js';

export const TASK_STATUSES = ['SCHEDULED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

export const FINAL_STATUSES: readonly TaskStatus[] = ['SUCCEEDED', 'FAILED', 'CANCELLED'];

export function isFinalStatus(status: TaskStatus): boolean {
  return FINAL_STATUSES.includes(status);
}

/**
 * Marks a task input as a schedule's action: the schedule's id when written at create; once the
 * occurrence has started, also the nominal time it runs for (src/shared/schedule.ts).
 */
export interface ScheduleMark {
  scheduleId: string;
  /** RFC 3339 UTC with milliseconds: the time the occurrence runs for (before jitter). */
  scheduledAt?: string;
}

/** What the client asked for, with defaults applied: the workflow's input. */
export interface TaskSpec {
  /** The client's task id, unique per owner (the workflow id is derived from both: src/shared/owner.ts). */
  taskId: string;
  /**
   * Owner of the task: the owner of the API key that created it, `default` when authentication is
   * off. Inputs recorded before owners existed have none: read them as `default` (`ownerOf`).
   */
  owner: string;
  taskType: string;
  payload: Record<string, unknown>;
  payloadVersion: number;
  /** RFC 3339 UTC with milliseconds. */
  executeAt: string;
  /** Where the task is called back; absent when `delivery` names another target. */
  callbackUrl?: string;
  /**
   * A delivery target other than the HTTP callback (src/shared/delivery.ts). Absent: the callback,
   * as in every input recorded before targets existed.
   */
  delivery?: Delivery;
  /** Retries after the first attempt. */
  maxRetries: number;
  /** Limit of one callback attempt. */
  timeoutMs: number;
  traceId: string | null;
  /** 1 (highest) to 5 (lowest). */
  priority: number;
  /** RFC 3339 UTC with milliseconds. */
  createdAt: string;
  /** Task queue the callback activity runs on (the task type's policy). */
  callbackTaskQueue: string;
  /** Task queue of a pull task's lease (`pullQueue` in src/shared/task-queues.ts); set with `delivery`. */
  deliveryTaskQueue?: string;
  /** The task type's retry schedule; absent in inputs recorded before it existed: today's schedule. */
  retryPolicy?: RetryPolicy;
  /**
   * Written since workflow shape v2 (its presence marks a v2 input): true, the callback is a local
   * activity in the worker that runs the task on its type's queue; false (types with a
   * `ratePerSecond`, whose server-side rate limit only counts regular activities), a regular
   * activity on `callbackTaskQueue`. Absent in inputs recorded before v2: a regular activity.
   */
  localCallback?: boolean;
  /**
   * The callback's `Idempotency-Key` (`idempotencyKeyOf`), written at create since keys became unique
   * across owners, and carried over by a replay. Absent in inputs recorded before: the bare task id,
   * which such a task keeps for life, so no retry of it ever arrives under a second key.
   */
  idempotencyKey?: string;
  /**
   * Set only in the input of a schedule's action (src/shared/schedule.ts): the task is an occurrence
   * of that schedule and takes its id, key and due time from the occurrence. Absent in every other
   * input, which runs exactly as before.
   */
  schedule?: ScheduleMark;
}

export interface TaskError {
  message: string;
  statusCode?: number;
}

/** How one callback attempt ended. */
export const ATTEMPT_OUTCOMES = ['SUCCEEDED', 'RETRYABLE_ERROR', 'PERMANENT_ERROR', 'CANCELLED'] as const;
export type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number];

/** One callback attempt, as the workflow saw it. */
export interface AttemptRecord {
  /** 1 for the first attempt. */
  attempt: number;
  /** When the workflow started the attempt (RFC 3339 UTC with milliseconds). */
  startedAt: string;
  /** When the workflow learned how the attempt ended (RFC 3339 UTC with milliseconds). */
  finishedAt: string;
  outcome: AttemptOutcome;
  /** The receiver's HTTP status, when it answered. */
  statusCode?: number;
  /** Why the attempt failed; absent when it succeeded. */
  error?: string;
}

/** The task as it is now: the answer of the workflow's `status` query. */
export interface TaskState extends Omit<
  TaskSpec,
  'callbackTaskQueue' | 'deliveryTaskQueue' | 'retryPolicy' | 'localCallback'
> {
  status: TaskStatus;
  attempts: number;
  lastError: TaskError | null;
  nextAttemptAt: string | null;
  firedAt: string | null;
  completedAt: string | null;
  /**
   * The newest attempts, oldest first, at most `ATTEMPT_HISTORY_LIMIT`. Absent in a result recorded
   * before the history existed.
   */
  attemptHistory?: AttemptRecord[];
}

/** Appends an attempt to a history, dropping the oldest beyond `ATTEMPT_HISTORY_LIMIT`. */
export function recordAttempt(history: AttemptRecord[], record: AttemptRecord): void {
  history.push(record);
  if (history.length > ATTEMPT_HISTORY_LIMIT) history.splice(0, history.length - ATTEMPT_HISTORY_LIMIT);
}

/** Owner of a task; a workflow input recorded before owners existed has none and is `default`'s. */
export function ownerOf(spec: Pick<TaskSpec, 'owner'>): string {
  return (spec.owner as string | undefined) ?? DEFAULT_OWNER;
}

/** A task as it starts: scheduled, nothing attempted yet. */
export function initialTaskState(spec: TaskSpec): TaskState {
  const {
    callbackTaskQueue: _queue,
    deliveryTaskQueue: _delivery,
    retryPolicy: _retry,
    localCallback: _local,
    ...fields
  } = spec;
  return {
    ...fields,
    owner: ownerOf(spec),
    status: 'SCHEDULED',
    attempts: 0,
    lastError: null,
    nextAttemptAt: null,
    firedAt: null,
    completedAt: null,
    attemptHistory: [],
  };
}

/** Argument of the `reschedule` update. */
export interface RescheduleRequest {
  /** RFC 3339 UTC with milliseconds. */
  executeAt: string;
}

/** Argument of the `cancel` signal. */
export interface CancelRequest {
  reason?: string;
}

/** Failure types the callback activity throws; the workflow reads them to decide. */
export const CallbackFailureType = {
  /** Worth another attempt: 408, 425, 429, 5xx, timeout, network error. */
  Retryable: 'CallbackRetryable',
  /** Never worth another attempt: other 4xx, 3xx, an invalid URL. */
  Permanent: 'CallbackPermanent',
  /**
   * Not sent: our own configuration lacks what the callback needs (the owner's signing secret, a
   * header secret of the type). The receiver was never asked, so the task is held: tried again later
   * without counting an attempt, until an operator fixes the configuration.
   */
  Held: 'CallbackHeld',
  /** A pull task's worker nacked it: retried with the task's backoff. */
  Nacked: 'LeaseNacked',
  /** A pull task's worker nacked it as permanent: dead letter with the worker's reason. */
  NackedPermanent: 'LeaseNackedPermanent',
  /**
   * A pull task handed back unhandled (`release`, or a lease the API received after its consumer
   * left): not attempted, so no attempt is spent, and it is offered again at once.
   */
  Released: 'LeaseReleased',
  /**
   * A pull task the API itself received for a lease call that had already answered or whose consumer
   * had left, and handed back at once: offered again at once, and not counted by the release bound
   * (a consumer did not ask for it; at 20 tasks/s such hand-backs met the bound's waits).
   */
  HandedBack: 'LeaseHandedBack',
} as const;
export type CallbackFailureType = (typeof CallbackFailureType)[keyof typeof CallbackFailureType];

/** Details carried by a callback activity failure. */
export interface CallbackFailureDetails {
  statusCode?: number;
  /** Server-requested wait (Retry-After) before the next attempt. */
  retryAfterMs?: number;
}

/** Failure type a workflow ends with when the task is dead-lettered. */
export const TASK_FAILED_TYPE = 'TaskFailed';

/** Error type a rejected update carries: the task is not in a state that allows it. */
export const FAILED_PRECONDITION_TYPE = 'FailedPrecondition';
