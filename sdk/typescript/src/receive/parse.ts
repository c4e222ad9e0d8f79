/** The callback body as a typed object, integers beyond 2^53 kept exact as `bigint`. */
import { parse } from '../json.js';
import { CallbackRejectedError } from './verify.js';

export interface Callback<P = Record<string, unknown>> {
  taskId: string;
  taskType: string;
  payload: P;
  payloadVersion: number;
  executeAt: Date;
  attempt: number;
  traceId: string | null;
  /** Set when the task is an occurrence of a schedule; null for a one-shot task. */
  schedule: CallbackSchedule | null;
}

/** The schedule an occurrence runs for. */
export interface CallbackSchedule {
  scheduleId: string;
  /** The nominal time the occurrence runs for (before jitter; for a backfill, the past run time). */
  scheduledAt: Date;
}

/** Parses raw callback bytes; throws CallbackRejectedError('invalid_body') on anything else. */
export function parseCallback(body: string | Uint8Array): Callback {
  const text = typeof body === 'string' ? body : Buffer.from(body).toString('utf8');
  let value: unknown;
  try {
    value = parse(text);
  } catch (err) {
    throw new CallbackRejectedError('invalid_body', `body is not JSON: ${(err as Error).message}`);
  }
  const fields = value as Record<string, unknown> | null;
  const valid =
    fields !== null &&
    typeof fields === 'object' &&
    !Array.isArray(fields) &&
    typeof fields.taskId === 'string' &&
    typeof fields.taskType === 'string' &&
    fields.payload !== null &&
    typeof fields.payload === 'object' &&
    !Array.isArray(fields.payload) &&
    typeof fields.payloadVersion === 'number' &&
    isTime(fields.executeAt) &&
    typeof fields.attempt === 'number' &&
    (fields.traceId === null || fields.traceId === undefined || typeof fields.traceId === 'string') &&
    (fields.schedule === null || fields.schedule === undefined || isSchedule(fields.schedule));
  if (!valid) throw new CallbackRejectedError('invalid_body', 'body is not a callback');
  return {
    taskId: fields.taskId as string,
    taskType: fields.taskType as string,
    payload: fields.payload as Record<string, unknown>,
    payloadVersion: fields.payloadVersion as number,
    executeAt: new Date(fields.executeAt as string),
    attempt: fields.attempt as number,
    traceId: (fields.traceId as string | null | undefined) ?? null,
    schedule: isSchedule(fields.schedule)
      ? { scheduleId: fields.schedule.scheduleId, scheduledAt: new Date(fields.schedule.scheduledAt) }
      : null,
  };
}

function isSchedule(value: unknown): value is { scheduleId: string; scheduledAt: string } {
  const schedule = value as Record<string, unknown> | null;
  return (
    schedule !== null &&
    typeof schedule === 'object' &&
    !Array.isArray(schedule) &&
    typeof schedule.scheduleId === 'string' &&
    isTime(schedule.scheduledAt)
  );
}

/**
 * An RFC 3339 time (four-digit year, an offset). `Date.parse` alone takes loose forms too and reads
 * `1/1/99` as 1999; the shape comes first, then the value.
 */
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;
function isTime(value: unknown): value is string {
  return typeof value === 'string' && RFC3339.test(value) && !Number.isNaN(Date.parse(value));
}
