/**
 * What a schedule refuses, and what it does with time: every bad input answers 400 naming its field
 * and creates nothing in Temporal; the per-owner count and the minimum interval are enforced; a
 * backfill across a real zone's DST changes shows what a skipped and a repeated local time do.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness } from '../helpers/harness.js';
import { SCHEDULE_TEST_ENV } from '../helpers/schedule-env.js';
import {
  createSchedule,
  deleteSchedule,
  occurrenceCalls,
  temporalHasSchedule,
  uniqueId,
  waitForOccurrences,
} from '../helpers/schedules.js';
import { waitFor } from '../helpers/wait.js';

let h: Harness;
beforeAll(async () => {
  // The defaults but for the count, so that the limit is reached quickly.
  h = await Harness.start({
    env: { ...SCHEDULE_TEST_ENV, SCHEDULES_MAX_PER_OWNER: '3' },
    policies: {
      taskTypes: {
        'report.typed': {
          schemas: {
            '1': { type: 'object', required: ['day'], properties: { day: { type: 'string' } } },
          },
        },
      },
    },
  });
});
afterAll(async () => {
  await h?.stop();
});

const task = () => ({ taskType: h.taskType('report'), payload: {}, callbackUrl: h.receiver.url });
const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();

describe('bad input', () => {
  const cases: { name: string; body: Record<string, unknown>; field: string }[] = [
    { name: 'an invalid cron', body: { cron: 'every day' }, field: 'cron' },
    { name: 'a cron of four fields', body: { cron: '0 2 * *' }, field: 'cron' },
    { name: 'a cron value out of range', body: { cron: '61 * * * *' }, field: 'cron' },
    { name: 'an unknown macro', body: { cron: '@fortnightly' }, field: 'cron' },
    { name: 'a cron that never fires', body: { cron: '0 0 30 2 *' }, field: 'cron' },
    { name: 'both days restricted', body: { cron: '0 0 1 * MON' }, field: 'cron' },
    {
      name: 'an unknown time zone',
      body: { cron: '0 2 * * *', timeZone: 'Mars/Olympus' },
      field: 'timeZone',
    },
    { name: 'an offset for a time zone', body: { cron: '0 2 * * *', timeZone: '+08:00' }, field: 'timeZone' },
    { name: 'an interval below the minimum', body: { every: '30s' }, field: 'every' },
    { name: 'an interval that is no duration', body: { every: '15' }, field: 'every' },
    { name: 'a phase not less than every', body: { every: '1h', phase: '1h' }, field: 'phase' },
    { name: 'both cron and every', body: { cron: '0 2 * * *', every: '1h' }, field: 'every' },
    { name: 'neither cron nor every', body: {}, field: 'cron' },
    {
      name: 'an end before the start',
      body: { every: '1h', startAt: inDays(2), endAt: inDays(1) },
      field: 'endAt',
    },
    { name: 'an end in the past', body: { every: '1h', endAt: inDays(-1) }, field: 'endAt' },
    {
      name: 'a window the spec never fires in',
      body: { cron: '0 0 1 1 *', startAt: '2027-02-01T00:00:00Z', endAt: '2027-03-01T00:00:00Z' },
      field: 'endAt',
    },
    { name: 'a run limit of 0', body: { every: '1h', maxRuns: 0 }, field: 'maxRuns' },
    {
      name: 'a catch-up window below 10 s',
      body: { every: '1h', catchupWindow: '5s' },
      field: 'catchupWindow',
    },
    { name: 'an unknown overlap policy', body: { every: '1h', overlap: 'terminateOther' }, field: 'overlap' },
    {
      name: 'a start without an offset',
      body: { every: '1h', startAt: '2027-01-01T00:00:00' },
      field: 'startAt',
    },
  ];

  for (const { name, body, field } of cases) {
    it(`${name}: 400 INVALID_ARGUMENT naming ${field}, nothing created`, async () => {
      const scheduleId = uniqueId('bad');
      const answer = await createSchedule(h, { scheduleId, ...body, task: task() });
      expect(answer.status, JSON.stringify(answer.body)).toBe(400);
      expect(answer.body.error!.code).toBe('INVALID_ARGUMENT');
      expect(answer.body.error!.details!.map((d) => d.field)).toContain(field);
      expect(await temporalHasSchedule(h, scheduleId)).toBe(false);
    });
  }

  it("the task's fields are checked as a one-shot create's, named under task", async () => {
    const cases: { task: Record<string, unknown>; field: string }[] = [
      { task: { ...task(), callbackUrl: 'http://169.254.169.254/latest' }, field: 'task.callbackUrl' },
      {
        task: { taskType: 'report.typed', payload: { day: 5 }, callbackUrl: h.receiver.url },
        field: 'task.payload.day',
      },
      { task: { ...task(), payloadVersion: 0 }, field: 'task.payloadVersion' },
    ];
    for (const { task: body, field } of cases) {
      const scheduleId = uniqueId('bad-task');
      const answer = await createSchedule(h, { scheduleId, every: '1h', task: body });
      expect(answer.status, JSON.stringify(answer.body)).toBe(400);
      expect(answer.body.error!.details!.map((d) => d.field)).toContain(field);
      expect(await temporalHasSchedule(h, scheduleId)).toBe(false);
    }
  });
});

describe('limits', () => {
  it('the minimum interval holds for a cron too, and a minute cron is allowed at the default', async () => {
    const scheduleId = uniqueId('minute');
    expect((await createSchedule(h, { scheduleId, cron: '* * * * *', task: task() })).status).toBe(201);
    await deleteSchedule(h, scheduleId);
  });

  it("an owner's schedules stop at SCHEDULES_MAX_PER_OWNER: 409, nothing created, a repeat still answers 200", async () => {
    const ids = [uniqueId('count'), uniqueId('count'), uniqueId('count')];
    const bodies = ids.map((scheduleId) => ({ scheduleId, cron: '0 2 * * *', task: task() }));
    for (const body of bodies) expect((await createSchedule(h, body)).status).toBe(201);
    // Visibility lists a new schedule within a moment.
    const extra = uniqueId('count');
    const refused = await waitFor(
      async () => {
        const answer = await createSchedule(h, { scheduleId: extra, cron: '0 2 * * *', task: task() });
        if (answer.status === 201) await deleteSchedule(h, extra);
        return answer.status === 409 && answer;
      },
      { what: 'the fourth schedule refused' },
    );
    expect(refused.body.error!.code).toBe('SCHEDULE_LIMIT_EXCEEDED');
    expect(await temporalHasSchedule(h, extra)).toBe(false);
    expect((await createSchedule(h, bodies[0]!)).status).toBe(200);
    for (const id of ids) await deleteSchedule(h, id);
  });
});

describe('daylight saving time', () => {
  it('a backfill across New York 2026 changes: a skipped local time does not run, a repeated one runs at both instants', async () => {
    const scheduleId = uniqueId('dst');
    const created = await createSchedule(h, {
      scheduleId,
      cron: '30 1,2 * * *',
      timeZone: 'America/New_York',
      paused: true,
      task: task(),
    });
    expect(created.status).toBe(201);
    const backfill = async (startAt: string, endAt: string) =>
      h.call('POST', `/api/v1/schedules/${scheduleId}/backfill`, { payload: { startAt, endAt } });
    // 8 March 2026, 02:00 EST -> 03:00 EDT: 02:30 does not exist that day.
    expect((await backfill('2026-03-07T12:00:00-05:00', '2026-03-09T12:00:00-04:00')).status).toBe(200);
    // 1 November 2026, 02:00 EDT -> 01:00 EST: 01:30 happens twice.
    expect((await backfill('2026-10-31T12:00:00-04:00', '2026-11-02T12:00:00-05:00')).status).toBe(200);
    await waitForOccurrences(h.receiver, scheduleId, EXPECTED_DST_RUNS.length, 60_000);
    const times = () =>
      occurrenceCalls(h.receiver, scheduleId)
        .map((call) => call.body.schedule!.scheduledAt)
        .sort();
    await new Promise((resolve) => setTimeout(resolve, 2000)); // none beyond: nothing more arrives
    expect(times()).toEqual(EXPECTED_DST_RUNS);
    await deleteSchedule(h, scheduleId);
  });
});

/** What Temporal does, in UTC (docs/api.md#schedules says it in local time). */
const EXPECTED_DST_RUNS = [
  // 8 March: 01:30 EST; 02:30 does not exist that day and does not run.
  '2026-03-08T06:30:00.000Z',
  // 9 March (EDT, -4): 01:30, 02:30.
  '2026-03-09T05:30:00.000Z',
  '2026-03-09T06:30:00.000Z',
  // 1 November: 01:30 EDT, 01:30 again an hour later in EST (both run), 02:30 EST.
  '2026-11-01T05:30:00.000Z',
  '2026-11-01T06:30:00.000Z',
  '2026-11-01T07:30:00.000Z',
  // 2 November (EST, -5): 01:30, 02:30.
  '2026-11-02T06:30:00.000Z',
  '2026-11-02T07:30:00.000Z',
];
