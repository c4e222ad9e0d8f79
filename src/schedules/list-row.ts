/**
 * A list row from what Temporal's ListSchedules returns for each schedule, without a describe: the
 * id, the owner and task type (search attributes), paused and note, the next run time, the time zone
 * and the timing. A cron is the one given: written as the comment of Temporal's own cron string at
 * create and update (`cron # as given`), which Temporal keeps on the compiled calendar; a schedule
 * written before that shows its calendar as an equivalent cron. An interval shows as a duration in
 * its shortest form (`90m` given lists as `1h30m`). Pure.
 */
import { defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import type { ScheduleSummary } from '../contract/schedules.js';
import { SEARCH_ATTRIBUTES, TASK_WORKFLOW_TYPE } from '../shared/constants.js';
import { parseWorkflowId } from '../shared/owner.js';

type Entry = temporal.api.schedule.v1.IScheduleListEntry;
type Calendar = temporal.api.schedule.v1.IStructuredCalendarSpec;
type Range = temporal.api.schedule.v1.IRange;

/** The cron Temporal is given: the normalized expression, the one given as its comment. */
export function cronWithComment(normalized: string, given: string): string {
  return `${normalized} # ${given}`;
}

/** The row of one of our schedules; undefined for an entry that is not one (made by hand). */
export function rowOf(entry: Entry): ScheduleSummary | undefined {
  const { owner, taskId: scheduleId } = parseWorkflowId(entry.scheduleId ?? '');
  const fields = entry.searchAttributes?.indexedFields ?? {};
  const keyword = (name: string) => {
    const payload = fields[name];
    const value = payload ? defaultPayloadConverter.fromPayload<unknown>(payload) : undefined;
    return typeof value === 'string' ? value : undefined;
  };
  const info = entry.info;
  if (keyword(SEARCH_ATTRIBUTES.owner.name) !== owner || info?.workflowType?.name !== TASK_WORKFLOW_TYPE) {
    return undefined;
  }
  const taskType = keyword(SEARCH_ATTRIBUTES.taskType.name);
  if (!taskType) return undefined;
  const calendar = info.spec?.structuredCalendar?.[0];
  const interval = info.spec?.interval?.[0]?.interval;
  const next = info.futureActionTimes?.[0];
  return {
    scheduleId,
    owner,
    taskType,
    cron: calendar ? calendar.comment?.trim() || cronOfCalendar(calendar) : null,
    every: !calendar && interval ? durationText(seconds(interval)) : null,
    timeZone: info.spec?.timezoneName || 'UTC',
    paused: info.paused ?? false,
    note: info.notes ? info.notes : null,
    nextRunTime: next ? new Date(seconds(next) * 1000 + (next.nanos ?? 0) / 1e6).toISOString() : null,
  };
}

/** The seconds of a protobuf Duration or Timestamp (a number or a Long). */
function seconds(value: { seconds?: number | { toNumber(): number } | null }): number {
  const s = value.seconds;
  return s == null ? 0 : typeof s === 'number' ? s : s.toNumber();
}

/** `5400` as `1h30m`: days, hours, minutes and seconds in that order, zero parts left out. */
export function durationText(total: number): string {
  const parts: [number, string][] = [
    [Math.floor(total / 86_400), 'd'],
    [Math.floor((total % 86_400) / 3_600), 'h'],
    [Math.floor((total % 3_600) / 60), 'm'],
    [total % 60, 's'],
  ];
  const text = parts
    .filter(([n]) => n > 0)
    .map(([n, unit]) => `${n}${unit}`)
    .join('');
  return text || '0s';
}

/** A compiled calendar as a five-field cron (minute hour day-of-month month day-of-week). */
export function cronOfCalendar(calendar: Calendar): string {
  const field = (ranges: Range[] | null | undefined, min: number, max: number) => {
    const list = ranges ?? [];
    if (list.length === 0) return '*';
    return list
      .map(({ start, end, step }) => {
        const from = start ?? 0;
        const to = Math.max(end ?? 0, from);
        const every = step && step > 1 ? `/${step}` : '';
        if (from === min && to === max) return `*${every}`;
        return from === to && !every ? `${from}` : `${from}-${to}${every}`;
      })
      .join(',');
  };
  return [
    field(calendar.minute, 0, 59),
    field(calendar.hour, 0, 23),
    field(calendar.dayOfMonth, 1, 31),
    field(calendar.month, 1, 12),
    field(calendar.dayOfWeek, 0, 6),
  ].join(' ');
}
