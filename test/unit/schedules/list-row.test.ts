import { defaultPayloadConverter } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import type { google } from '@temporalio/proto';
import { cronOfCalendar, durationText, rowOf } from '../../../src/schedules/list-row.js';

type ProtoTime = google.protobuf.ITimestamp;

/** A protobuf seconds field: the decoder hands numbers or Longs; the row reads both. */
const seconds = (n: number) => ({ seconds: n, nanos: 0 }) as unknown as ProtoTime;

const sa = (fields: Record<string, string>) => ({
  indexedFields: Object.fromEntries(
    Object.entries(fields).map(([name, value]) => [name, defaultPayloadConverter.toPayload(value)]),
  ),
});

describe('durationText', () => {
  it.each([
    [1, '1s'],
    [90, '1m30s'],
    [5400, '1h30m'],
    [86_400, '1d'],
    [90_061, '1d1h1m1s'],
  ])('%d s is %s', (seconds, text) => {
    expect(durationText(seconds)).toBe(text);
  });
});

describe('cronOfCalendar', () => {
  it('writes a compiled calendar back as an equivalent five-field cron', () => {
    expect(
      cronOfCalendar({
        second: [{ step: 1 }],
        minute: [{ start: 30, end: 30, step: 1 }],
        hour: [{ start: 2, end: 2, step: 1 }],
        dayOfMonth: [{ start: 1, end: 31, step: 1 }],
        month: [{ start: 1, end: 12, step: 1 }],
        dayOfWeek: [{ start: 1, end: 5, step: 1 }],
      }),
    ).toBe('30 2 * * 1-5');
    expect(
      cronOfCalendar({
        minute: [{ start: 0, end: 59, step: 15 }],
        hour: [
          { start: 8, end: 8 },
          { start: 18, end: 18 },
        ],
        dayOfMonth: [{ start: 1, end: 31 }],
        month: [{ start: 1, end: 12 }],
        dayOfWeek: [{ end: 6 }],
      }),
    ).toBe('*/15 8,18 * * *');
  });
});

describe('rowOf', () => {
  const base = {
    scheduleId: 'alice/daily',
    searchAttributes: sa({ Owner: 'alice', TaskType: 'report.daily' }),
    info: {
      workflowType: { name: 'delayedTask' },
      spec: {
        structuredCalendar: [{ minute: [{ start: 30, end: 30 }], comment: '30 2 * * MON-FRI' }],
        timezoneName: 'Asia/Shanghai',
      },
      paused: true,
      notes: 'maintenance',
      futureActionTimes: [seconds(1_796_000_000)],
    },
  };

  it('reads the row from the list entry alone: the cron as given from the comment', () => {
    expect(rowOf(base)).toEqual({
      scheduleId: 'daily',
      owner: 'alice',
      taskType: 'report.daily',
      cron: '30 2 * * MON-FRI',
      every: null,
      timeZone: 'Asia/Shanghai',
      paused: true,
      note: 'maintenance',
      nextRunTime: new Date(1_796_000_000_000).toISOString(),
    });
  });

  it('an interval as its shortest duration, UTC by default', () => {
    const row = rowOf({
      ...base,
      scheduleId: 'hourly',
      searchAttributes: sa({ Owner: 'default', TaskType: 't' }),
      info: { workflowType: { name: 'delayedTask' }, spec: { interval: [{ interval: seconds(5400) }] } },
    });
    expect(row).toMatchObject({
      owner: 'default',
      cron: null,
      every: '1h30m',
      timeZone: 'UTC',
      paused: false,
    });
  });

  it.each([
    {
      what: 'another owner in the id than in the search attribute',
      entry: { ...base, scheduleId: 'bob/daily' },
    },
    { what: 'no owner search attribute', entry: { ...base, searchAttributes: sa({ TaskType: 'x' }) } },
    {
      what: 'another workflow type (made by hand)',
      entry: { ...base, info: { ...base.info, workflowType: { name: 'other' } } },
    },
  ])('is none for $what', ({ entry }) => {
    expect(rowOf(entry)).toBeUndefined();
  });
});
