/**
 * Schedules against a real dev server and a real receiver: occurrences fire on time and once each,
 * each is a task like any other; create is idempotent; pause stops and resume restarts; trigger and
 * backfill start exactly the occurrences they should; update takes effect; delete stops it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Schedule } from '../../src/contract/schedules.js';
import { Harness } from '../helpers/harness.js';
import { SCHEDULE_TEST_ENV } from '../helpers/schedule-env.js';
import {
  createSchedule,
  deleteSchedule,
  firstCalls,
  getSchedule,
  occurrenceCalls,
  temporalHasSchedule,
  uniqueId,
  waitForOccurrences,
} from '../helpers/schedules.js';
import { waitForStatus } from '../helpers/tasks.js';
import { waitFor } from '../helpers/wait.js';

let h: Harness;
beforeAll(async () => {
  h = await Harness.start({ env: { ...SCHEDULE_TEST_ENV, SCHEDULE_MIN_INTERVAL_SECONDS: '1' } });
});
afterAll(async () => {
  await h?.stop();
});

/** Loopback and two shared cores: a workflow start, one workflow task and the POST. */
const FIRE_LAG_TOLERANCE_MS = 1500;

const taskOf = (url: string) => ({
  taskType: h.taskType('report'),
  payload: { report: 'daily' },
  callbackUrl: url,
});

/** Waits out `ms` to see that nothing more happens (absence cannot be waited for as an event). */
const quietFor = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('occurrences', () => {
  it('fire on time, once each, as tasks that name their schedule and nominal time', async () => {
    const scheduleId = uniqueId('every-2s');
    const created = await createSchedule(h, { scheduleId, every: '2s', task: taskOf(`${h.receiver.url}/r`) });
    expect(created.status).toBe(201);
    const schedule = created.body;
    expect(schedule).toMatchObject({
      scheduleId,
      owner: 'default',
      every: '2s',
      cron: null,
      overlap: 'skip',
    });
    expect(schedule.catchupWindow).toBe('1h');
    // The next 10 run times, from Temporal: 2 s apart, on the epoch's 2 s grid.
    expect(schedule.nextRunTimes).toHaveLength(10);
    const next = schedule.nextRunTimes.map(Date.parse);
    for (let i = 1; i < next.length; i++) expect(next[i]! - next[i - 1]!).toBe(2000);
    expect(next[0]! % 2000).toBe(0);

    const calls = await waitForOccurrences(h.receiver, scheduleId, 3);
    await deleteSchedule(h, scheduleId);
    const nominal = calls.map((call) => Date.parse(call.body.schedule!.scheduledAt));
    expect(new Set(nominal).size).toBe(nominal.length);
    // On the 2 s grid, in order. A run may be skipped on a loaded machine (overlap `skip`: the previous
    // occurrence still running when the next is due, seen in CI), never run twice or off the grid.
    for (let i = 1; i < 3; i++) {
      const gap = nominal[i]! - nominal[i - 1]!;
      expect(gap).toBeGreaterThan(0);
      expect(gap % 2000).toBe(0);
    }
    for (const call of calls) {
      const at = Date.parse(call.body.schedule!.scheduledAt);
      expect(call.at - at, 'fire lag').toBeLessThan(FIRE_LAG_TOLERANCE_MS);
      expect(call.at - at).toBeGreaterThanOrEqual(-50);
      const taskId = `${scheduleId}-${new Date(at).toISOString().replace('.000Z', 'Z')}`;
      expect(call.body.taskId).toBe(taskId);
      expect(call.body.executeAt).toBe(new Date(at).toISOString());
      expect(call.body.payload).toEqual({ report: 'daily' });
      expect(call.headers['idempotency-key']).toBe(taskId);
    }
    // Each occurrence is a task: GET, the list, its final status.
    const task = await waitForStatus(h, calls[0]!.body.taskId, 'SUCCEEDED');
    expect(task.executeAt).toBe(calls[0]!.body.schedule!.scheduledAt);
    expect(task.attempts).toBe(1);
    // Once each: no occurrence called back twice.
    const all = occurrenceCalls(h.receiver, scheduleId).map((call) => call.body.taskId);
    expect(new Set(all).size).toBe(all.length);
  });

  it('are listed with their outcomes on the schedule, and stop when it is deleted', async () => {
    const scheduleId = uniqueId('recent');
    await createSchedule(h, { scheduleId, every: '1s', task: taskOf(h.receiver.url) });
    const [first] = await waitForOccurrences(h.receiver, scheduleId, 2);
    const schedule = await waitFor(
      async () => {
        const body = await getSchedule(h, scheduleId);
        const entry = body.recentOccurrences.find((o) => o.taskId === first!.body.taskId);
        return entry?.status === 'SUCCEEDED' && body;
      },
      { what: 'the first occurrence listed as SUCCEEDED' },
    );
    expect(schedule.occurrencesStarted).toBeGreaterThanOrEqual(2);
    // The worker counts each occurrence it starts, with its lag behind the nominal time.
    const metrics = await h.workerMetrics.registry.metrics();
    const started = [
      ...metrics.matchAll(/^delayed_tasks_schedule_occurrence_lag_seconds_count\{[^}]*\} (\d+)/gm),
    ];
    expect(started.reduce((sum, match) => sum + Number(match[1]), 0)).toBeGreaterThanOrEqual(2);
    const entry = schedule.recentOccurrences.find((o) => o.taskId === first!.body.taskId)!;
    expect(entry.scheduledAt).toBe(first!.body.schedule!.scheduledAt);
    expect(await deleteSchedule(h, scheduleId)).toBe(204);
    expect(await temporalHasSchedule(h, scheduleId)).toBe(false);
    expect((await h.call('GET', `/api/v1/schedules/${scheduleId}`)).body.error.code).toBe(
      'SCHEDULE_NOT_FOUND',
    );
    const count = firstCalls(h.receiver, scheduleId).length;
    await quietFor(2500);
    // An occurrence started just before the delete may still call back; none after it.
    expect(firstCalls(h.receiver, scheduleId).length).toBeLessThanOrEqual(count + 1);
  });
});

describe('list', () => {
  it('filters by task type and paused state, and pages', async () => {
    const taskType = h.taskType('listed');
    const ids = ['a', 'b', 'c'].map((name) => uniqueId(`list-${name}`)).sort();
    for (const [i, scheduleId] of ids.entries()) {
      const answer = await createSchedule(h, {
        scheduleId,
        cron: '0 0 1 1 *',
        paused: i === 1,
        ...(i === 1 && { note: 'on hold' }),
        task: { taskType, payload: {}, callbackUrl: h.receiver.url },
      });
      expect(answer.status).toBe(201);
    }
    // A page describes each schedule (a query of its scheduler workflow): on a loaded machine one may
    // answer 503 UNAVAILABLE past TEMPORAL_RPC_TIMEOUT_MS; ask again then.
    const list = (query: string) =>
      waitFor(
        async () => {
          const answer = await h.call('GET', `/api/v1/schedules?taskType=${taskType}${query}`);
          if (answer.status === 503) return false;
          expect(answer.status).toBe(200);
          return answer.body;
        },
        { what: `the list ${query}` },
      );
    const idsOf = (body: { schedules: { scheduleId: string }[] }) =>
      body.schedules.map((s) => s.scheduleId).sort();
    await waitFor(async () => idsOf(await list('')).length === 3, { what: 'three schedules listed' });
    const paused = await list('&paused=true');
    expect(idsOf(paused)).toEqual([ids[1]]);
    expect(paused.schedules[0]).toMatchObject({ paused: true, note: 'on hold', taskType, cron: '0 0 1 1 *' });
    expect(paused.schedules[0].nextRunTime).toMatch(/-01-01T00:00:00.000Z$/);
    expect(idsOf(await list('&paused=false'))).toEqual([ids[0], ids[2]]);
    const first = await list('&pageSize=2');
    expect(first.schedules).toHaveLength(2);
    expect(first.nextPageToken).toEqual(expect.any(String));
    const second = await list(`&pageSize=2&pageToken=${encodeURIComponent(first.nextPageToken)}`);
    expect([...idsOf(first), ...idsOf(second)].sort()).toEqual(ids);
    const tampered = await h.call(
      'GET',
      `/api/v1/schedules?pageToken=${encodeURIComponent(first.nextPageToken)}`,
    );
    expect(tampered.status).toBe(400);
    for (const scheduleId of ids) await deleteSchedule(h, scheduleId);
  });
});

describe('create', () => {
  it('is idempotent on scheduleId: the same body answers 200, another 409, and nothing changes', async () => {
    const scheduleId = uniqueId('idem');
    const body = { scheduleId, cron: '0 2 * * *', timeZone: 'Asia/Shanghai', task: taskOf(h.receiver.url) };
    expect((await createSchedule(h, body)).status).toBe(201);
    const again = await createSchedule(h, body);
    expect(again.status).toBe(200);
    expect(again.body.scheduleId).toBe(scheduleId);
    // 02:00 in Shanghai is 18:00 UTC.
    expect(new Date(again.body.nextRunTimes[0]!).getUTCHours()).toBe(18);
    const other = await createSchedule(h, { ...body, cron: '0 3 * * *' });
    expect(other.status).toBe(409);
    expect(other.body.error!.code).toBe('SCHEDULE_CONFLICT');
    expect((await getSchedule(h, scheduleId)).cron).toBe('0 2 * * *');
    await deleteSchedule(h, scheduleId);
  });
});

describe('pause and resume', () => {
  it('pause stops the occurrences, with its note; resume restarts them, without the missed ones', async () => {
    const scheduleId = uniqueId('pause');
    await createSchedule(h, { scheduleId, every: '1s', task: taskOf(h.receiver.url) });
    await waitForOccurrences(h.receiver, scheduleId, 1);
    const paused = await h.call('POST', `/api/v1/schedules/${scheduleId}/pause`, {
      payload: { note: 'receiver maintenance' },
    });
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ paused: true, note: 'receiver maintenance' });
    // Temporal still lists the next run times while paused; none of them starts until resumed.
    expect(paused.body.nextRunTimes).toHaveLength(10);
    const pausedAt = Date.now();
    await quietFor(1500); // an occurrence started just before the pause may still arrive
    const before = firstCalls(h.receiver, scheduleId).length;
    await quietFor(3000);
    expect(firstCalls(h.receiver, scheduleId).length).toBe(before);
    expect((await getSchedule(h, scheduleId)).paused).toBe(true);

    const resumed = await h.call('POST', `/api/v1/schedules/${scheduleId}/resume`, {
      payload: { note: 'back' },
    });
    expect(resumed.body).toMatchObject({ paused: false, note: 'back' });
    const resumedAt = Date.now();
    const calls = await waitForOccurrences(h.receiver, scheduleId, before + 1);
    await deleteSchedule(h, scheduleId);
    // None of the runs missed while paused was started on resume.
    const after = calls.slice(before).map((call) => Date.parse(call.body.schedule!.scheduledAt));
    for (const at of after) expect(at).toBeGreaterThan(resumedAt - 1000);
    expect(after.every((at) => at > pausedAt)).toBe(true);
  });

  it('pause and resume without a note change the paused state too, with a note saying how', async () => {
    const scheduleId = uniqueId('pause-bare');
    await createSchedule(h, { scheduleId, cron: '0 0 1 1 *', task: taskOf(h.receiver.url) });
    const paused = await h.call('POST', `/api/v1/schedules/${scheduleId}/pause`, { payload: {} });
    expect(paused.body).toMatchObject({ paused: true, note: 'paused through the API' });
    expect((await getSchedule(h, scheduleId)).paused).toBe(true);
    const resumed = await h.call('POST', `/api/v1/schedules/${scheduleId}/resume`);
    expect(resumed.body).toMatchObject({ paused: false, note: 'resumed through the API' });
    expect((await getSchedule(h, scheduleId)).paused).toBe(false);
    await deleteSchedule(h, scheduleId);
  });
});

describe('the task each occurrence is', () => {
  it("starts each occurrence with the task's priority, as a one-shot task starts", async () => {
    const scheduleId = uniqueId('priority');
    await createSchedule(h, {
      scheduleId,
      cron: '0 0 1 1 *',
      paused: true,
      task: { ...taskOf(h.receiver.url), priority: 2 },
    });
    const described = await h.client.schedule.getHandle(scheduleId).describe();
    expect(described.action.priority?.priorityKey).toBe(2);
    await h.call('POST', `/api/v1/schedules/${scheduleId}/trigger`);
    const [call] = await waitForOccurrences(h.receiver, scheduleId, 1);
    const occurrence = await h.client.workflow.getHandle(call!.body.taskId).describe();
    expect(occurrence.priority?.priorityKey).toBe(2);
    await deleteSchedule(h, scheduleId);
  });
});

describe('trigger and backfill', () => {
  it('trigger starts exactly one occurrence now, also while paused', async () => {
    const scheduleId = uniqueId('trigger');
    await createSchedule(h, { scheduleId, cron: '0 0 1 1 *', paused: true, task: taskOf(h.receiver.url) });
    const before = Date.now();
    const triggered = await h.call('POST', `/api/v1/schedules/${scheduleId}/trigger`);
    expect(triggered.status).toBe(200);
    const [call] = await waitForOccurrences(h.receiver, scheduleId, 1);
    expect(Date.parse(call!.body.schedule!.scheduledAt)).toBeGreaterThanOrEqual(
      Math.floor(before / 1000) * 1000,
    );
    await quietFor(2000);
    expect(occurrenceCalls(h.receiver, scheduleId)).toHaveLength(1);
    await deleteSchedule(h, scheduleId);
  });

  it('backfill starts one occurrence per run time in the range, each with its nominal time', async () => {
    const scheduleId = uniqueId('backfill');
    await createSchedule(h, { scheduleId, every: '1m', paused: true, task: taskOf(h.receiver.url) });
    const minute = 60_000;
    const start = Math.floor(Date.now() / minute) * minute - 10 * minute;
    const end = start + 3 * minute;
    const answer = await h.call('POST', `/api/v1/schedules/${scheduleId}/backfill`, {
      payload: { startAt: new Date(start).toISOString(), endAt: new Date(end).toISOString() },
    });
    expect(answer.status).toBe(200);
    // Start and end inclusive: 4 runs.
    const expected = [0, 1, 2, 3].map((i) => new Date(start + i * minute).toISOString());
    await waitForOccurrences(h.receiver, scheduleId, expected.length);
    await quietFor(2000);
    const got = occurrenceCalls(h.receiver, scheduleId).map((call) => call.body.schedule!.scheduledAt);
    expect(got.sort()).toEqual(expected);
    await deleteSchedule(h, scheduleId);
  });
});

describe('update', () => {
  it('replaces the fields given, validated first; a refused update changes nothing', async () => {
    const scheduleId = uniqueId('update');
    await createSchedule(h, { scheduleId, cron: '0 2 * * *', task: taskOf(h.receiver.url) });
    const refused = await h.call('PATCH', `/api/v1/schedules/${scheduleId}`, {
      payload: { timeZone: 'Mars/Base' },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details[0].field).toBe('timeZone');
    expect((await getSchedule(h, scheduleId)).timeZone).toBe('UTC');
    const changed = await h.call('PATCH', `/api/v1/schedules/${scheduleId}`, {
      payload: { every: '1s', task: { ...taskOf(h.receiver.url), payload: { report: 'v2' } } },
    });
    expect(changed.status).toBe(200);
    const body = changed.body as Schedule;
    expect(body).toMatchObject({ cron: null, every: '1s' });
    expect(body.task.payload).toEqual({ report: 'v2' });
    const [call] = await waitForOccurrences(h.receiver, scheduleId, 1);
    expect(call!.body.payload).toEqual({ report: 'v2' });
    await deleteSchedule(h, scheduleId);
  });
});
