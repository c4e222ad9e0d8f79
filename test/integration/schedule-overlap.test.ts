/**
 * Overlap policies with a slow receiver: a schedule every second whose callbacks take seconds. Each
 * policy does what it promises: skip never runs two at once and counts what it skipped (in GET and
 * in the API's metrics); allowAll runs
 * them side by side; bufferOne starts the buffered run as soon as the previous one ends; cancelOther
 * cancels the running occurrence (its task ends CANCELLED) and starts the next.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness } from '../helpers/harness.js';
import { SCHEDULE_TEST_ENV } from '../helpers/schedule-env.js';
import {
  createSchedule,
  deleteSchedule,
  firstCalls,
  getSchedule,
  runsSkippedGauge,
  uniqueId,
  waitForOccurrences,
} from '../helpers/schedules.js';
import { waitForStatus } from '../helpers/tasks.js';
import type { ReceivedCallback } from '../helpers/receiver.js';
import { waitFor } from '../helpers/wait.js';

let h: Harness;
beforeAll(async () => {
  h = await Harness.start({ env: { ...SCHEDULE_TEST_ENV, SCHEDULE_MIN_INTERVAL_SECONDS: '1' } });
});
afterAll(async () => {
  await h?.stop();
});

/** A schedule every second whose receiver answers after `delayMs`; its first `count` occurrences. */
async function run(
  overlap: string,
  delayMs: number,
  count: number,
): Promise<{ scheduleId: string; calls: ReceivedCallback[] }> {
  const scheduleId = uniqueId(`overlap-${overlap}`);
  const path = `/${scheduleId}`;
  h.receiver.script(path, [{ status: 200, delayMs }]);
  const created = await createSchedule(h, {
    scheduleId,
    every: '1s',
    overlap,
    task: {
      taskType: h.taskType('slow'),
      payload: {},
      callbackUrl: `${h.receiver.url}${path}`,
      maxRetries: 0,
    },
  });
  expect(created.status).toBe(201);
  const calls = await waitForOccurrences(h.receiver, scheduleId, count, 60_000);
  return { scheduleId, calls };
}

const nominalOf = (call: ReceivedCallback) => Date.parse(call.body.schedule!.scheduledAt);

describe('overlap policies with a slow receiver', () => {
  it('skip (the default): never two at once; the runs due meanwhile are skipped and counted', async () => {
    const { scheduleId, calls } = await run('skip', 2500, 3);
    const schedule = await getSchedule(h, scheduleId);
    // The API's gauge sums the same counts over the type's schedules (this one is its type's only one).
    expect(await runsSkippedGauge(h, schedule.task.taskType, 'overlap')).toBeGreaterThanOrEqual(
      schedule.skippedByOverlap,
    );
    await deleteSchedule(h, scheduleId);
    for (let i = 1; i < calls.length; i++) {
      // The next one starts only after the previous answered (2.5 s), at the next whole second.
      expect(calls[i]!.at - calls[i - 1]!.at).toBeGreaterThanOrEqual(2500);
      // And it runs for its own nominal time, not a skipped one's: it started on time.
      expect(calls[i]!.at - nominalOf(calls[i]!)).toBeLessThan(1500);
    }
    expect(schedule.overlap).toBe('skip');
    expect(schedule.skippedByOverlap).toBeGreaterThanOrEqual(2);
  });

  it('allowAll: occurrences run side by side', async () => {
    const { scheduleId, calls } = await run('allowAll', 4000, 3);
    const schedule = await getSchedule(h, scheduleId);
    await deleteSchedule(h, scheduleId);
    // Three callbacks in flight at once: each came before the first one answered.
    expect(calls[2]!.at - calls[0]!.at).toBeLessThan(4000);
    expect(schedule.skippedByOverlap).toBe(0);
  });

  it('bufferOne: the run due meanwhile starts as soon as the previous one ends, the others are skipped', async () => {
    const { scheduleId, calls } = await run('bufferOne', 2500, 3);
    const schedule = await getSchedule(h, scheduleId);
    await deleteSchedule(h, scheduleId);
    for (let i = 1; i < calls.length; i++) {
      const gap = calls[i]!.at - calls[i - 1]!.at;
      // Never two at once, and no wait for the next whole second: it was buffered.
      expect(gap).toBeGreaterThanOrEqual(2500);
      expect(gap).toBeLessThan(2500 + 900);
      // It runs for the nominal time it was due at, which is in the past when it starts.
      expect(calls[i]!.at - nominalOf(calls[i]!)).toBeGreaterThan(1000);
    }
    expect(schedule.skippedByOverlap).toBeGreaterThanOrEqual(1);
  });

  it('cancelOther: the running occurrence is cancelled (its task CANCELLED, its attempt abandoned) and the next one starts', async () => {
    const { scheduleId, calls } = await run('cancelOther', 20_000, 2);
    await deleteSchedule(h, scheduleId);
    // The cancel reaches the workflow when the workflow task holding the attempt yields: at once
    // between attempts, within 8 s (80% of the 10 s workflow task timeout) during a slow attempt. Far
    // sooner than the 20 s the receiver would take.
    expect(calls[1]!.at - calls[0]!.at).toBeLessThan(10_000);
    const cancelled = await waitForStatus(h, calls[0]!.body.taskId, 'CANCELLED');
    expect(cancelled.attempts).toBe(1);
    expect(firstCalls(h.receiver, scheduleId).map((call) => call.body.taskId)).toContain(
      calls[1]!.body.taskId,
    );
  });

  it('pauseOnFailure: a dead-lettered occurrence pauses the schedule; replayed, it still names its schedule', async () => {
    const scheduleId = uniqueId('pause-on-failure');
    const path = `/${scheduleId}`;
    h.receiver.script(path, [{ status: 400 }]);
    await createSchedule(h, {
      scheduleId,
      every: '1s',
      pauseOnFailure: true,
      task: { taskType: h.taskType('failing'), payload: {}, callbackUrl: `${h.receiver.url}${path}` },
    });
    const [call] = await waitForOccurrences(h.receiver, scheduleId, 1);
    await waitForStatus(h, call!.body.taskId, 'FAILED');
    const paused = await waitFor(
      async () => {
        const schedule = await getSchedule(h, scheduleId);
        return schedule.paused && schedule;
      },
      { what: 'the schedule paused' },
    );
    expect(paused.note).toEqual(expect.any(String));

    // Replayed, the dead-lettered occurrence is the same task: same key, and its callback still names
    // the schedule and the nominal time it ran for (a report for that day, not for the replay's).
    const failed = call!.body;
    h.receiver.script(failed.taskId, [{ status: 400 }, { status: 200 }]);
    const replayed = await h.call('POST', `/api/v1/tasks/${encodeURIComponent(failed.taskId)}/replay`, {
      payload: {},
    });
    expect(replayed.status).toBe(200);
    const [, again] = await h.receiver.waitForCalls(failed.taskId, 2);
    expect(again!.body.schedule).toEqual(failed.schedule);
    expect(again!.headers['idempotency-key']).toBe(call!.headers['idempotency-key']);
    await waitForStatus(h, failed.taskId, 'SUCCEEDED');
    await deleteSchedule(h, scheduleId);
  });
});
