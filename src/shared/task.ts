/**
 * The task as the workflow, the activities and the API share it. Pure types and functions:
 * imported by workflow code, so no Node built-ins and no I/O here.
 */
import type { RetryPolicy } from './backoff.js';
import { DEFAULT_OWNER } from './owner.js';

export const TASK_STATUSES = ['SCHEDULED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

export const FINAL_STATUSES: readonly TaskStatus[] = ['SUCCEEDED', 'FAILED', 'CANCELLED'];

export function isFinalStatus(status: TaskStatus): boolean {
  return FINAL_STATUSES.includes(status);
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
  callbackUrl: string;
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
  /** The task type's retry schedule; absent in inputs recorded before it existed: today's schedule. */
  retryPolicy?: RetryPolicy;
  /**
   * Workflow shape v2: the task runs on its type's queue and calls back with a local activity in the
   * worker that runs it. Absent (inputs recorded before v2, and types with a `ratePerSecond`, whose
   * server-side rate limit only applies to regular activities): a regular activity on
   * `callbackTaskQueue`.
   */
  localCallback?: boolean;
}

export interface TaskError {
  message: string;
  statusCode?: number;
}

/** The task as it is now: the answer of the workflow's `status` query. */
export interface TaskState extends Omit<TaskSpec, 'callbackTaskQueue' | 'retryPolicy' | 'localCallback'> {
  status: TaskStatus;
  attempts: number;
  lastError: TaskError | null;
  nextAttemptAt: string | null;
  firedAt: string | null;
  completedAt: string | null;
}

/** Owner of a task; a workflow input recorded before owners existed has none and is `default`'s. */
export function ownerOf(spec: Pick<TaskSpec, 'owner'>): string {
  return (spec.owner as string | undefined) ?? DEFAULT_OWNER;
}

/** A task as it starts: scheduled, nothing attempted yet. */
export function initialTaskState(spec: TaskSpec): TaskState {
  const { callbackTaskQueue: _queue, retryPolicy: _retry, localCallback: _local, ...fields } = spec;
  return {
    ...fields,
    owner: ownerOf(spec),
    status: 'SCHEDULED',
    attempts: 0,
    lastError: null,
    nextAttemptAt: null,
    firedAt: null,
    completedAt: null,
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
