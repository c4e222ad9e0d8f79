/**
 * The timing of a schedule as the client gave it, checked (a clear 400 naming the field) and turned
 * into Temporal's ScheduleSpec and policies. Pure: `now` and the limits come in as arguments.
 */
import type { ScheduleOverlapPolicy, ScheduleSpec } from '@temporalio/client';
import type { Config } from '../config/environment.js';
import type { CreateScheduleBody, OverlapPolicy } from '../contract/schedules.js';
import { ApiError, ErrorCode, invalidArgument } from '../errors/catalog.js';
import { CATCHUP_WINDOW } from '../shared/limits.js';
import { parseRfc3339 } from '../tasks/input.js';
import {
  CRON_HORIZON_DAYS,
  CronError,
  matchingDays,
  minutesOfDay,
  parseCron,
  shortestGapSeconds,
} from './cron.js';
import { cronWithComment } from './list-row.js';
import { durationSeconds, instantOfWallTime, isKnownTimeZone, localDate } from './zone.js';

export type ScheduleLimits = Config['schedules'];

/** The timing fields of a schedule: a create body without its id, task and initial state. */
export type Timing = Omit<CreateScheduleBody, 'scheduleId' | 'task' | 'paused' | 'note'>;

/** A checked timing: what Temporal is given, and the run times' checker for backfills. */
export interface CheckedTiming {
  spec: ScheduleSpec;
  policies: { overlap: ScheduleOverlapPolicy; catchupWindow: string; pauseOnFailure: boolean };
  remainingActions: number | undefined;
  /** Run times of the spec in (from, to], at most `limit + 1` of them (ms). */
  runsBetween(from: number, to: number, limit: number): number[];
}

export const OVERLAP_TO_TEMPORAL: Record<OverlapPolicy, ScheduleOverlapPolicy> = {
  skip: 'SKIP',
  bufferOne: 'BUFFER_ONE',
  bufferAll: 'BUFFER_ALL',
  allowAll: 'ALLOW_ALL',
  cancelOther: 'CANCEL_OTHER',
};

function seconds(field: string, text: string): number {
  const value = durationSeconds(text);
  if (value === undefined) throw invalidArgument(field, 'must be a duration such as 30s, 15m, 1h30m or 1d');
  return value;
}

function time(field: string, text: string): number {
  const at = parseRfc3339(text);
  if (at === undefined) {
    throw invalidArgument(
      field,
      'must be an RFC 3339 time with an offset (Z or +08:00), e.g. 2026-12-02T18:30:00+08:00',
    );
  }
  return at;
}

export function checkTiming(timing: Timing, limits: ScheduleLimits, now: number): CheckedTiming {
  const timeZone = timing.timeZone ?? 'UTC';
  if (!isKnownTimeZone(timeZone)) {
    throw invalidArgument(
      'timeZone',
      `${timeZone} is not an IANA time zone name such as Asia/Shanghai or UTC`,
    );
  }
  if ((timing.cron === undefined) === (timing.every === undefined)) {
    throw new ApiError(ErrorCode.InvalidArgument, 'give exactly one of cron or every', [
      {
        field: timing.cron === undefined ? 'cron' : 'every',
        reason: 'exactly one of cron or every is required',
      },
    ]);
  }
  const startAt = timing.startAt === undefined ? undefined : time('startAt', timing.startAt);
  const endAt = timing.endAt === undefined ? undefined : time('endAt', timing.endAt);
  if (startAt !== undefined && endAt !== undefined && endAt <= startAt) {
    throw invalidArgument('endAt', 'must be after startAt');
  }
  if (endAt !== undefined && endAt <= now)
    throw invalidArgument('endAt', 'is in the past: the schedule would never fire');
  const jitter = timing.jitter === undefined ? undefined : seconds('jitter', timing.jitter);
  const catchup = seconds('catchupWindow', timing.catchupWindow ?? CATCHUP_WINDOW.default);
  if (catchup < CATCHUP_WINDOW.min || catchup > CATCHUP_WINDOW.max) {
    throw invalidArgument(
      'catchupWindow',
      `must be from ${CATCHUP_WINDOW.min} s to ${CATCHUP_WINDOW.max / 86_400} days`,
    );
  }
  const from = Math.max(now, startAt ?? now);
  const runs =
    timing.every !== undefined ? intervalRuns(timing, limits) : cronRuns(timing.cron!, timeZone, limits, now);
  if (runs.between(from - 1, endAt ?? from + runs.horizonMs, 1).length === 0) {
    const field =
      endAt !== undefined && runs.between(from - 1, from + runs.horizonMs, 1).length > 0
        ? 'endAt'
        : runs.field;
    throw invalidArgument(
      field,
      field === 'endAt' ? 'leaves no run time: the schedule would never fire' : 'never fires',
    );
  }
  const spec: ScheduleSpec = {
    ...runs.spec,
    ...(timing.cron !== undefined && { timezone: timeZone }),
    ...(startAt !== undefined && { startAt: new Date(startAt) }),
    ...(endAt !== undefined && { endAt: new Date(endAt) }),
    ...(jitter !== undefined && jitter > 0 && { jitter: `${jitter}s` }),
  };
  return {
    spec,
    policies: {
      overlap: OVERLAP_TO_TEMPORAL[timing.overlap ?? 'skip'],
      catchupWindow: `${catchup}s`,
      pauseOnFailure: timing.pauseOnFailure ?? false,
    },
    remainingActions: timing.maxRuns,
    runsBetween: (a, b, limit) =>
      runs.between(Math.max(a, startAt ?? -Infinity), Math.min(b, endAt ?? Infinity), limit),
  };
}

interface Runs {
  spec: ScheduleSpec;
  field: 'cron' | 'every';
  /** How far ahead a first run is looked for. */
  horizonMs: number;
  between(from: number, to: number, limit: number): number[];
}

function intervalRuns(timing: Timing, limits: ScheduleLimits): Runs {
  const every = seconds('every', timing.every!);
  if (every < limits.minIntervalSeconds) {
    throw invalidArgument(
      'every',
      `is ${every} s; the minimum interval is ${limits.minIntervalSeconds} s (SCHEDULE_MIN_INTERVAL_SECONDS)`,
    );
  }
  const phase = timing.phase === undefined ? 0 : seconds('phase', timing.phase);
  if (phase >= every) throw invalidArgument('phase', `must be less than every (${timing.every})`);
  const everyMs = every * 1000;
  const phaseMs = phase * 1000;
  return {
    // Temporal's intervals count from the Unix epoch, plus the phase.
    spec: { intervals: [{ every: `${every}s`, ...(phase > 0 && { offset: `${phase}s` }) }] },
    field: 'every',
    horizonMs: everyMs,
    between(from, to, limit) {
      const times: number[] = [];
      for (
        let t = Math.floor((from - phaseMs) / everyMs + 1) * everyMs + phaseMs;
        t <= to && times.length <= limit;
        t += everyMs
      ) {
        times.push(t);
      }
      return times;
    },
  };
}

function cronRuns(expression: string, timeZone: string, limits: ScheduleLimits, now: number): Runs {
  let fields;
  try {
    fields = parseCron(expression);
  } catch (err) {
    if (err instanceof CronError) throw invalidArgument('cron', err.message);
    throw err;
  }
  const gap = shortestGapSeconds(fields, new Date(now));
  if (gap === undefined) throw invalidArgument('cron', 'never fires (no date matches it)');
  if (gap < limits.minIntervalSeconds) {
    throw invalidArgument(
      'cron',
      `fires ${gap} s apart; the minimum interval is ${limits.minIntervalSeconds} s (SCHEDULE_MIN_INTERVAL_SECONDS)`,
    );
  }
  const times = minutesOfDay(fields);
  return {
    // The cron as given rides along as the comment, for the list (src/schedules/list-row.ts).
    spec: { cronExpressions: [cronWithComment(fields.normalized, expression)] },
    field: 'cron',
    horizonMs: CRON_HORIZON_DAYS * 86_400_000,
    between(from, to, limit) {
      const runs: number[] = [];
      const firstDay = localDate(from, timeZone);
      // One day of margin on either side for the zone's offset.
      const days = Math.min(CRON_HORIZON_DAYS, Math.ceil((to - firstDay.getTime()) / 86_400_000) + 2);
      for (const day of matchingDays(fields, new Date(firstDay.getTime() - 86_400_000), days + 1)) {
        for (const minute of times) {
          const at = instantOfWallTime(day.getTime() + minute * 60_000, timeZone);
          if (at > from && at <= to && runs.at(-1) !== at) runs.push(at);
          if (runs.length > limit || at > to) return runs;
        }
      }
      return runs;
    },
  };
}
