/**
 * Five-field cron expressions, parsed to check them and to tell whether and how often they fire.
 * Temporal computes the run times (`nextRunTimes` is its answer); this only refuses what it should
 * not be given: a malformed expression, one that never fires, one that fires too often. Pure.
 */
import { CRON_MACROS } from '../shared/cron-macros.js';

export interface CronFields {
  minutes: number[];
  hours: number[];
  daysOfMonth: number[];
  months: number[];
  /** 0 (Sunday) to 6. */
  daysOfWeek: number[];
  /** The expression as Temporal is given it: plain numbers, `*` for an unrestricted field. */
  normalized: string;
}

const MONTH_NAMES = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const DAY_NAMES = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

interface FieldRule {
  name: string;
  min: number;
  max: number;
  names?: string[];
  /** First value of the names list. */
  namesFrom?: number;
}

const FIELDS: FieldRule[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: MONTH_NAMES, namesFrom: 1 },
  { name: 'day of week', min: 0, max: 7, names: DAY_NAMES, namesFrom: 0 },
];

export class CronError extends Error {
  override name = 'CronError';
}

/** Parses a cron expression; throws CronError saying what is wrong. */
export function parseCron(expression: string): CronFields {
  const text = expression.trim();
  const expanded = text.startsWith('@') ? CRON_MACROS[text.toLowerCase()] : text;
  if (expanded === undefined) {
    throw new CronError(`${text} is not one of ${Object.keys(CRON_MACROS).join(', ')}`);
  }
  const parts = expanded.split(/\s+/);
  if (parts.length !== 5) {
    throw new CronError(
      `has ${parts.length} fields; give 5 (minute hour day-of-month month day-of-week), e.g. 0 2 * * *`,
    );
  }
  const sets = parts.map((part, i) => parseField(part, FIELDS[i]!));
  const [minutes, hours, daysOfMonth, months, rawDays] = sets as [
    number[],
    number[],
    number[],
    number[],
    number[],
  ];
  const daysOfWeek = [...new Set(rawDays.map((day) => day % 7))].sort((a, b) => a - b);
  const restricted = (part: string) => part !== '*';
  if (restricted(parts[2]!) && restricted(parts[4]!)) {
    // Standard cron ORs the two, Temporal's calendars AND them: refuse rather than guess.
    throw new CronError('restricts both day of month and day of week; restrict one of them only');
  }
  const render = (part: string, values: number[]) => (part === '*' ? '*' : values.join(','));
  const normalized = [
    render(parts[0]!, minutes),
    render(parts[1]!, hours),
    render(parts[2]!, daysOfMonth),
    render(parts[3]!, months),
    render(parts[4]!, daysOfWeek),
  ].join(' ');
  return { minutes, hours, daysOfMonth, months, daysOfWeek, normalized };
}

function parseField(part: string, rule: FieldRule): number[] {
  const values = new Set<number>();
  for (const item of part.split(',')) {
    const match = /^(\*|[A-Za-z0-9]+(?:-[A-Za-z0-9]+)?)(?:\/(\d+))?$/.exec(item);
    if (!match) throw new CronError(`${rule.name} field: ${item} is not a value, range, list or step`);
    const [, range, stepText] = match as unknown as [string, string, string | undefined];
    const step = stepText === undefined ? 1 : Number(stepText);
    if (step < 1) throw new CronError(`${rule.name} field: step ${stepText} must be at least 1`);
    let from: number;
    let to: number;
    if (range === '*') {
      from = rule.min;
      to = rule.name === 'day of week' ? 6 : rule.max;
    } else {
      const [a, b] = range.split('-') as [string, string | undefined];
      from = valueOf(a, rule);
      // `5/15`: from 5 to the end in steps of 15.
      to = b === undefined ? (stepText === undefined ? from : rule.max) : valueOf(b, rule);
      if (to < from) throw new CronError(`${rule.name} field: range ${range} runs backwards`);
    }
    for (let value = from; value <= to; value += step) values.add(value);
  }
  return [...values].sort((a, b) => a - b);
}

function valueOf(text: string, rule: FieldRule): number {
  const named = rule.names?.indexOf(text.toUpperCase()) ?? -1;
  const value = named >= 0 ? named + (rule.namesFrom ?? 0) : /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isInteger(value) || value < rule.min || value > rule.max) {
    throw new CronError(`${rule.name} field: ${text} is not in ${rule.min}-${rule.max}`);
  }
  return value;
}

const DAY_MS = 86_400_000;

/** Whether the calendar date (UTC fields of `day`) matches the day fields. */
export function dayMatches(fields: CronFields, day: Date): boolean {
  return (
    fields.months.includes(day.getUTCMonth() + 1) &&
    fields.daysOfMonth.includes(day.getUTCDate()) &&
    fields.daysOfWeek.includes(day.getUTCDay())
  );
}

/** Minutes of the day at which it fires, ascending. */
export function minutesOfDay(fields: CronFields): number[] {
  return fields.hours.flatMap((hour) => fields.minutes.map((minute) => hour * 60 + minute));
}

/** Calendar days (as UTC midnights) that match, from `from` for `days` days. */
export function* matchingDays(fields: CronFields, from: Date, days: number): Generator<Date> {
  const start = Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), from.getUTCDate());
  for (let i = 0; i < days; i++) {
    const day = new Date(start + i * DAY_MS);
    if (dayMatches(fields, day)) yield day;
  }
}

/** Eight years: every leap day, and every weekday of every month's dates, comes round. */
export const CRON_HORIZON_DAYS = 8 * 366;

/**
 * The shortest time between two runs, in seconds, on wall-clock time (a DST change can shorten one
 * gap by its shift); undefined when it never fires within the horizon.
 */
export function shortestGapSeconds(fields: CronFields, from: Date): number | undefined {
  const times = minutesOfDay(fields);
  let shortest = Infinity;
  for (let i = 1; i < times.length; i++) shortest = Math.min(shortest, times[i]! - times[i - 1]!);
  let previous: Date | undefined;
  let any = false;
  for (const day of matchingDays(fields, from, CRON_HORIZON_DAYS)) {
    any = true;
    if (previous) {
      const dayGap = (day.getTime() - previous.getTime()) / DAY_MS;
      shortest = Math.min(shortest, dayGap * 1440 - (times.at(-1)! - times[0]!));
    }
    previous = day;
  }
  return any ? shortest * 60 : undefined;
}
