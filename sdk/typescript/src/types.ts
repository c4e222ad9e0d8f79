/** The resources as the SDK returns them: wire names, times parsed to `Date`. */
import type { Payload } from './checks.js';
import type { DelayedTaskError } from './errors.js';

export type TaskStatus = 'SCHEDULED' | 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'CANCELLED';

export interface TaskError {
  message: string;
  /** HTTP status the callback answered, when it answered. */
  statusCode?: number;
}

export interface Task {
  taskId: string;
  taskType: string;
  status: TaskStatus;
  executeAt: Date;
  createdAt: Date;
  payload: Payload;
  payloadVersion: number;
  callbackUrl: string;
  maxRetries: number;
  timeoutMs: number;
  traceId: string | null;
  priority: number;
  attempts: number;
  lastError: TaskError | null;
  nextAttemptAt: Date | null;
  firedAt: Date | null;
  completedAt: Date | null;
}

/** A list entry: the task without its payload. */
export interface TaskSummary {
  taskId: string;
  taskType: string;
  status: TaskStatus;
  executeAt: Date | null;
  createdAt: Date | null;
  callbackUrl: string | null;
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

export interface CreateTaskInput {
  taskType: string;
  payload: Payload;
  /** Seconds from now (fractions allowed, sent with millisecond precision). Exactly one of this or `executeAt`. */
  delaySeconds?: number;
  /** A `Date`, or an RFC 3339 string with an offset (sent as given). */
  executeAt?: Date | string;
  callbackUrl?: string;
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
export interface ListTasksQuery {
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

export type RescheduleInput =
  { delaySeconds: number; executeAt?: never } | { executeAt: Date | string; delaySeconds?: never };

export interface ReplayInput {
  payload?: Payload;
  payloadVersion?: number;
  maxRetries?: number;
  delaySeconds?: number;
  executeAt?: Date | string;
}

const TIME_FIELDS = ['executeAt', 'createdAt', 'nextAttemptAt', 'firedAt', 'completedAt'] as const;

/** Parses the RFC 3339 times of a task or summary from the wire into `Date`s (null stays null). */
export function withDates<T>(wire: Record<string, unknown>): T {
  const out: Record<string, unknown> = { ...wire };
  for (const field of TIME_FIELDS) {
    const value = out[field];
    if (typeof value === 'string') out[field] = new Date(value);
  }
  return out as T;
}
