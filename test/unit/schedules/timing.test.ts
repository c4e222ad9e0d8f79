/**
 * The pure rules of a schedule's timing: cron parsing, how often a cron fires, durations, time zones,
 * and the checks that name a field (table-driven).
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/environment.js';
import { ApiError } from '../../../src/errors/catalog.js';
import { CronError, parseCron, shortestGapSeconds } from '../../../src/schedules/cron.js';
import { checkTiming, type Timing } from '../../../src/schedules/spec.js';
import { durationSeconds, instantOfWallTime, isKnownTimeZone } from '../../../src/schedules/zone.js';
import { nominalTimeOfWorkflowId, occurrenceSpec } from '../../../src/shared/schedule.js';
import type { TaskSpec } from '../../../src/shared/task.js';

const NOW = Date.parse('2026-12-04T12:00:00Z');
const limits = loadConfig({}).schedules;

describe('parseCron', () => {
  const cases: { input: string; normalized: string }[] = [
    { input: '0 2 * * *', normalized: '0 2 * * *' },
    { input: '*/15 9-17 * * MON-FRI', normalized: '0,15,30,45 9,10,11,12,13,14,15,16,17 * * 1,2,3,4,5' },
    { input: '@daily', normalized: '0 0 * * *' },
    { input: '@hourly', normalized: '0 * * * *' },
    { input: '0 0 * * 7', normalized: '0 0 * * 0' },
    { input: '5/20 0 1 JAN,jul *', normalized: '5,25,45 0 1 1,7 *' },
  ];
  it.each(cases)('$input → $normalized', ({ input, normalized }) => {
    expect(parseCron(input).normalized).toBe(normalized);
  });

  const bad = [
    '',
    '0 2 * *',
    '0 2 * * * *',
    '60 * * * *',
    '* 24 * * *',
    '0 0 0 * *',
    '0 0 * 13 *',
    '5-1 * * * *',
    '*/0 * * * *',
    '@sometimes',
    'a b c d e',
    '0 0 1 * MON',
  ];
  it.each(bad)('refuses %j', (input) => {
    expect(() => parseCron(input)).toThrow(CronError);
  });
});

describe('shortestGapSeconds', () => {
  const cases: { cron: string; gap: number | undefined }[] = [
    { cron: '* * * * *', gap: 60 },
    { cron: '0,30 * * * *', gap: 1800 },
    { cron: '0 2 * * *', gap: 86_400 },
    { cron: '50 23 * * *', gap: 86_400 },
    { cron: '0 0,23 * * *', gap: 3600 },
    { cron: '0 0 * * 1,2', gap: 86_400 },
    { cron: '0 0 29 2 *', gap: 1461 * 86_400 },
    { cron: '0 0 30 2 *', gap: undefined },
    { cron: '0 0 31 4 *', gap: undefined },
  ];
  it.each(cases)('$cron: $gap s', ({ cron, gap }) => {
    expect(shortestGapSeconds(parseCron(cron), new Date(NOW))).toBe(gap);
  });
});

describe('zones and durations', () => {
  it.each([
    ['15m', 900],
    ['1h30m', 5400],
    ['1d', 86_400],
    ['2s', 2],
    ['15', undefined],
    ['1m1h', undefined],
  ] as const)('%s is %s s', (text, seconds) => {
    expect(durationSeconds(text)).toBe(seconds);
  });

  it.each([
    ['Asia/Shanghai', true],
    ['UTC', true],
    ['America/New_York', true],
    ['Mars/Olympus', false],
    ['+08:00', false],
    ['../etc/passwd', false],
  ] as const)('%s known: %s', (zone, known) => {
    expect(isKnownTimeZone(zone)).toBe(known);
  });

  it('a repeated wall time is its first instant; a skipped one is after the change', () => {
    // 1 November 2026, 01:30 New York happens at 05:30Z (EDT) and 06:30Z (EST).
    expect(
      new Date(instantOfWallTime(Date.parse('2026-11-01T01:30:00Z'), 'America/New_York')).toISOString(),
    ).toBe('2026-11-01T05:30:00.000Z');
    expect(
      new Date(instantOfWallTime(Date.parse('2026-12-04T02:00:00Z'), 'Asia/Shanghai')).toISOString(),
    ).toBe('2026-12-03T18:00:00.000Z');
  });
});

describe('checkTiming', () => {
  const refused: { timing: Timing; field: string }[] = [
    { timing: { cron: 'nope' }, field: 'cron' },
    { timing: { cron: '0 0 31 2 *' }, field: 'cron' },
    { timing: { every: '30s' }, field: 'every' },
    { timing: { every: '1h', phase: '2h' }, field: 'phase' },
    { timing: { cron: '0 2 * * *', timeZone: 'Nowhere/City' }, field: 'timeZone' },
    {
      timing: { every: '1h', startAt: '2027-01-02T00:00:00Z', endAt: '2027-01-01T00:00:00Z' },
      field: 'endAt',
    },
    { timing: { every: '1h', endAt: '2026-01-01T00:00:00Z' }, field: 'endAt' },
    {
      timing: { every: '1d', startAt: '2027-01-01T01:00:00Z', endAt: '2027-01-01T02:00:00Z' },
      field: 'endAt',
    },
    { timing: { every: '1h', catchupWindow: '8d' }, field: 'catchupWindow' },
    { timing: { every: '1h', jitter: 'soon' }, field: 'jitter' },
    { timing: {}, field: 'cron' },
  ];
  it.each(refused)('refuses $timing naming $field', ({ timing, field }) => {
    try {
      checkTiming(timing, limits, NOW);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).details?.map((d) => d.field)).toContain(field);
    }
  });

  it('gives Temporal a numeric cron in its zone (the one given as its comment), the policies with bounded defaults', () => {
    const checked = checkTiming({ cron: '@daily', timeZone: 'Asia/Shanghai', maxRuns: 3 }, limits, NOW);
    expect(checked.spec).toEqual({ cronExpressions: ['0 0 * * * # @daily'], timezone: 'Asia/Shanghai' });
    expect(checked.policies).toEqual({ overlap: 'SKIP', catchupWindow: '3600s', pauseOnFailure: false });
    expect(checked.remainingActions).toBe(3);
  });

  it('counts the run times of a range, start and end included', () => {
    const checked = checkTiming({ every: '1m' }, limits, NOW);
    const start = Date.parse('2026-12-01T00:00:00Z');
    expect(checked.runsBetween(start - 1, start + 3 * 60_000, 100)).toHaveLength(4);
  });
});

describe('occurrences', () => {
  const spec = { taskId: 'daily', owner: 'reports', schedule: { scheduleId: 'daily' } } as TaskSpec;
  it('take their id, key and due time from the occurrence', () => {
    const occurrence = occurrenceSpec(spec, {
      workflowId: 'reports/daily-2026-12-03T18:00:00Z',
      scheduledAt: '2026-12-03T18:00:00Z',
      startedAt: '2026-12-03T18:00:00.120Z',
    });
    expect(occurrence).toMatchObject({
      taskId: 'daily-2026-12-03T18:00:00Z',
      idempotencyKey: 'reports/daily-2026-12-03T18:00:00Z',
      executeAt: '2026-12-03T18:00:00.000Z',
      createdAt: '2026-12-03T18:00:00.120Z',
      schedule: { scheduleId: 'daily', scheduledAt: '2026-12-03T18:00:00.000Z' },
    });
  });

  it('without the search attribute, the workflow id names the nominal time; a one-shot input is unchanged', () => {
    expect(nominalTimeOfWorkflowId('daily-2026-12-03T18:00:00Z')).toBe('2026-12-03T18:00:00.000Z');
    expect(nominalTimeOfWorkflowId('order-1')).toBeUndefined();
    const oneShot = { taskId: 'order-1', owner: 'default' } as TaskSpec;
    expect(occurrenceSpec(oneShot, { workflowId: 'order-1', scheduledAt: undefined, startedAt: 'x' })).toBe(
      oneShot,
    );
  });
});
