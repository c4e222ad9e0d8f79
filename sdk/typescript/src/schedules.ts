/**
 * Schedules: recurring tasks on Temporal Schedules. The types as the SDK returns them (wire names,
 * times parsed to `Date`) and the wire bodies of the schedule verbs.
 */
import { checkPayload, checkTarget, wireTime, type Payload } from './checks.js';
import type { Delivery, TaskStatus } from './types.js';

/**
 * When a run is due while the previous occurrence still runs: `skip` (the service's default),
 * `bufferOne`, `bufferAll`, `allowAll`, `cancelOther`.
 */
export const OVERLAP_POLICIES = ['skip', 'bufferOne', 'bufferAll', 'allowAll', 'cancelOther'] as const;
export type OverlapPolicy = (typeof OVERLAP_POLICIES)[number];

/** What each occurrence runs: a task create without its id and due time. */
export interface ScheduleTaskRequest {
  taskType: string;
  payload: Payload;
  /** Not with `delivery`; may be left out when the task type's policy has one. */
  callbackUrl?: string;
  /** Pull or broker delivery instead of a callback. Not with `callbackUrl`. */
  delivery?: Delivery;
  maxRetries?: number;
  timeoutMs?: number;
  payloadVersion?: number;
  traceId?: string;
  priority?: number;
}

/** The timing and policies of a schedule; every field optional, unset ones are not sent. */
interface ScheduleSpecRequest {
  /** Five fields or `@daily`, `@hourly`... read in `timeZone`. Exactly one of `cron` or `every`. */
  cron?: string;
  /** A fixed interval (`30s`, `15m`, `1h30m`, `1d`). Exactly one of `cron` or `every`. */
  every?: string;
  /** Only with `every`: offset of each run from the interval boundary. */
  phase?: string;
  /** IANA time zone the cron fields are read in. @defaultValue `UTC` (the service's) */
  timeZone?: string;
  /** No run before this time: a `Date` or an RFC 3339 string with an offset, sent as UTC. */
  startAt?: Date | string;
  /** No run after this time: a `Date` or an RFC 3339 string with an offset, sent as UTC. */
  endAt?: Date | string;
  /** Run at most this many times (1 or more). */
  maxRuns?: number;
  /** Each run starts up to this long after its nominal time (`30s`). */
  jitter?: string;
  /** @defaultValue `skip` (the service's) */
  overlap?: OverlapPolicy;
  /** Runs missed by at most this long after an outage still start. @defaultValue `1h` (the service's) */
  catchupWindow?: string;
  /** Pause the schedule when an occurrence fails. @defaultValue false (the service's) */
  pauseOnFailure?: boolean;
}

export interface CreateScheduleRequest extends ScheduleSpecRequest {
  /** Client-chosen, unique per owner: creating it again with the same spec is an idempotent repeat. */
  scheduleId: string;
  /** Create it paused. @defaultValue false */
  paused?: boolean;
  /** Kept with the paused state. */
  note?: string;
  task: ScheduleTaskRequest;
}

/**
 * A change: the fields given replace the schedule's (`task` as a whole); `null` clears `phase`,
 * `startAt`, `endAt`, `maxRuns` or `jitter`. `cron` clears `every` and `phase`; `every` clears `cron`.
 */
export type UpdateScheduleRequest = Omit<
  ScheduleSpecRequest,
  'phase' | 'startAt' | 'endAt' | 'maxRuns' | 'jitter'
> & {
  phase?: string | null;
  startAt?: Date | string | null;
  endAt?: Date | string | null;
  maxRuns?: number | null;
  jitter?: string | null;
  task?: ScheduleTaskRequest;
};

export interface BackfillScheduleRequest {
  /** From this time, exclusive: a `Date` or an RFC 3339 string with an offset, sent as UTC. */
  startAt: Date | string;
  /** To this time, inclusive, not in the future. */
  endAt: Date | string;
  /** @defaultValue `allowAll` (the service's) */
  overlap?: OverlapPolicy;
}

/** The filters of `listSchedules`; unset ones are not sent. */
export interface ListSchedulesRequest {
  taskType?: string;
  /** Only paused (true) or only active (false) schedules. */
  paused?: boolean;
  /** Admin keys only: this owner's schedules. */
  owner?: string;
  /** 1 to 1000. @defaultValue 50 (the service's) */
  pageSize?: number;
  pageToken?: string;
}

/** One occurrence the schedule started: a task like any other. */
export interface ScheduleOccurrence {
  taskId: string;
  /** The nominal time it runs for. */
  scheduledAt: Date;
  /** When Temporal started it (after jitter). */
  startedAt: Date;
  /** Null while the task list has not caught up with its start. */
  status: TaskStatus | null;
}

/** The task every occurrence runs, defaults applied. */
export interface ScheduleTask {
  taskType: string;
  /** Absent from the answer of a write verb when the API key lacks `schedules:read`. */
  payload?: Payload;
  payloadVersion: number;
  /** Absent for pull or broker occurrences, and from the answer of a write verb when the API key lacks `schedules:read`. */
  callbackUrl?: string;
  /** The occurrences' pull or broker delivery; absent for callback occurrences. */
  delivery?: Delivery;
  maxRetries: number;
  timeoutMs: number;
  traceId: string | null;
  priority: number;
}

export interface Schedule {
  scheduleId: string;
  owner: string;
  cron: string | null;
  every: string | null;
  phase: string | null;
  timeZone: string;
  startAt: Date | null;
  endAt: Date | null;
  maxRuns: number | null;
  /** Runs left under `maxRuns`; null without a limit. */
  remainingRuns: number | null;
  jitter: string | null;
  overlap: OverlapPolicy;
  catchupWindow: string;
  pauseOnFailure: boolean;
  paused: boolean;
  /** The note of the last pause or resume. */
  note: string | null;
  task: ScheduleTask;
  /** The next nominal run times as Temporal computes them; listed while paused too (none starts until resumed); empty after the last run. */
  nextRunTimes: Date[];
  /** The newest occurrences, oldest first. */
  recentOccurrences: ScheduleOccurrence[];
  occurrencesStarted: number;
  skippedByOverlap: number;
  missedCatchupWindow: number;
  createdAt: Date;
  updatedAt: Date | null;
}

export interface CreateScheduleResult {
  schedule: Schedule;
  /** false when the service already had this schedule id with the same spec (idempotent repeat). */
  created: boolean;
}

/** A list entry; get the schedule for its task, run times and occurrences. */
export interface ScheduleSummary {
  scheduleId: string;
  owner: string;
  taskType: string;
  cron: string | null;
  every: string | null;
  timeZone: string;
  paused: boolean;
  note: string | null;
  /** The next nominal run time (also while paused); null after the last run. */
  nextRunTime: Date | null;
}

export interface SchedulePage {
  schedules: ScheduleSummary[];
  /** Pass as `pageToken` for the next page; null on the last. */
  nextPageToken: string | null;
}

export function schedulePath(scheduleId: string, verb?: string): string {
  const path = `/api/v1/schedules/${encodeURIComponent(scheduleId)}`;
  return verb === undefined ? path : `${path}/${verb}`;
}

/** The wire body of a create or update: times as UTC, the task's payload checked, unset fields left out. */
export function scheduleBody(
  input: CreateScheduleRequest | (UpdateScheduleRequest & { scheduleId?: never }),
) {
  const { startAt, endAt, task, ...rest } = input;
  if (task !== undefined) {
    checkPayload(task.payload, 'task.payload');
    checkTarget(task, 'task.delivery');
  }
  return definedOnly({
    ...rest,
    startAt: startAt === null ? null : startAt === undefined ? undefined : wireTime('startAt', startAt, true),
    endAt: endAt === null ? null : endAt === undefined ? undefined : wireTime('endAt', endAt, true),
    task: task === undefined ? undefined : definedOnly(task),
  });
}

export function backfillBody(input: BackfillScheduleRequest) {
  return definedOnly({
    startAt: wireTime('startAt', input.startAt, true),
    endAt: wireTime('endAt', input.endAt, true),
    overlap: input.overlap,
  });
}

/** A schedule from the wire: its times as `Date`s. */
export function scheduleOf(wire: Record<string, unknown>): Schedule {
  const occurrences = (wire.recentOccurrences ?? []) as Array<Record<string, unknown>>;
  return {
    ...wire,
    startAt: dateOrNull(wire.startAt),
    endAt: dateOrNull(wire.endAt),
    createdAt: new Date(wire.createdAt as string),
    updatedAt: dateOrNull(wire.updatedAt),
    nextRunTimes: ((wire.nextRunTimes ?? []) as string[]).map((time) => new Date(time)),
    recentOccurrences: occurrences.map((occurrence) => ({
      ...occurrence,
      scheduledAt: new Date(occurrence.scheduledAt as string),
      startedAt: new Date(occurrence.startedAt as string),
    })),
  } as Schedule;
}

export function schedulePageOf(wire: Record<string, unknown>): SchedulePage {
  const items = (wire.schedules ?? []) as Array<Record<string, unknown>>;
  return {
    schedules: items.map(
      (item) => ({ ...item, nextRunTime: dateOrNull(item.nextRunTime) }) as ScheduleSummary,
    ),
    nextPageToken: (wire.nextPageToken as string | null | undefined) ?? null,
  };
}

function dateOrNull(value: unknown): Date | null {
  return typeof value === 'string' ? new Date(value) : null;
}

/** The object without its undefined fields: bodies carry only what the caller set (null is sent). */
function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as Partial<T>;
}

/** @deprecated since 0.4.0, removed in 0.5.0: use {@link ScheduleTaskRequest}. */
export type ScheduleTaskInput = ScheduleTaskRequest;
/** @deprecated since 0.4.0, removed in 0.5.0: the fields of {@link CreateScheduleRequest}. */
export type ScheduleSpecInput = ScheduleSpecRequest;
/** @deprecated since 0.4.0, removed in 0.5.0: use {@link CreateScheduleRequest}. */
export type CreateScheduleInput = CreateScheduleRequest;
/** @deprecated since 0.4.0, removed in 0.5.0: use {@link UpdateScheduleRequest}. */
export type UpdateScheduleInput = UpdateScheduleRequest;
/** @deprecated since 0.4.0, removed in 0.5.0: use {@link BackfillScheduleRequest}. */
export type BackfillScheduleInput = BackfillScheduleRequest;
/** @deprecated since 0.4.0, removed in 0.5.0: use {@link ListSchedulesRequest}. */
export type ListSchedulesQuery = ListSchedulesRequest;
