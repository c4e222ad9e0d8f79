/**
 * A one-shot task cannot squat a schedule's occurrence. An occurrence's task id is
 * `<scheduleId>-<nominal time>` (Temporal names a Schedule's runs so); a create of a task with such
 * an id would hold that workflow id, and the occurrence would never start. From the attacker's side:
 * 1,000 creates of the next nominal times' ids (single and batch, by a key that cannot even see the
 * schedule and by one that can), each refused 400 naming taskId; then every nominal time of the
 * window runs as the schedule's occurrence, and a get of its id answers the occurrence.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness } from '../helpers/harness.js';
import { SCHEDULE_TEST_ENV } from '../helpers/schedule-env.js';
import { createSchedule, deleteSchedule, firstCalls, uniqueId } from '../helpers/schedules.js';
import { waitFor } from '../helpers/wait.js';

const EVERY_SECONDS = 2;
/** Nominal times attacked: this many ahead of now, each attacked several times. */
const AHEAD = 20;
const ATTEMPTS = 1000;

let h: Harness;
beforeAll(async () => {
  h = await Harness.start({
    env: { ...SCHEDULE_TEST_ENV, SCHEDULE_MIN_INTERVAL_SECONDS: '1', RATE_LIMIT_PER_MINUTE: '100000' },
    keys: {
      alice: { owner: 'alice', scopes: ['tasks:read', 'tasks:write', 'schedules:read', 'schedules:write'] },
      // Cannot see the schedule (another task type, no schedule scope) but creates tasks of the owner.
      blind: { owner: 'alice', scopes: ['tasks:write'], allowedTaskTypes: ['squat.*'] },
    },
  });
});
afterAll(async () => {
  await h?.stop();
});

const key = (name: string) => h.keys[name]!.key;
const second = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

describe('occurrence ids', () => {
  it('are refused to every create, and the schedule runs every nominal time of the window', async () => {
    const scheduleId = uniqueId('squatted');
    const created = await createSchedule(
      h,
      {
        scheduleId,
        every: `${EVERY_SECONDS}s`,
        task: { taskType: 'report.squat', payload: {}, callbackUrl: `${h.receiver.url}/occ` },
      },
      key('alice'),
    );
    expect(created.status).toBe(201);

    // The next AHEAD seconds' nominal times (every one, so whatever the phase), attacked by turns.
    const start = Math.ceil(Date.now() / 1000) * 1000 + 1000;
    const ids = Array.from({ length: AHEAD }, (_, i) => `${scheduleId}-${second(start + i * 1000)}`);
    const body = (taskId: string) => ({
      taskId,
      taskType: 'squat.task',
      payload: { squat: true },
      delaySeconds: 3600,
      callbackUrl: `${h.receiver.url}/squat`,
    });
    const answers: { status: number; field?: string }[] = [];
    let sent = 0;
    while (sent < ATTEMPTS) {
      const as = sent % 2 === 0 ? 'blind' : 'alice';
      if (sent % 200 === 0) {
        // A batch of 100 items, every item refused on its own.
        const items = Array.from({ length: 100 }, (_, i) => body(ids[(sent + i) % ids.length]!));
        const batch = await h.call('POST', '/api/v1/tasks/batch', {
          key: key(as),
          payload: { tasks: items },
        });
        expect(batch.status).toBe(200);
        for (const result of batch.body.results as { status: number; error?: any }[]) {
          answers.push({ status: result.status, field: result.error?.details?.[0]?.field });
        }
        sent += 100;
        continue;
      }
      const single = await h.call('POST', '/api/v1/tasks', {
        key: key(as),
        payload: body(ids[sent % ids.length]!),
      });
      answers.push({ status: single.status, field: single.body.error?.details?.[0]?.field });
      sent += 1;
    }
    expect(answers).toHaveLength(ATTEMPTS);
    expect(answers.filter((a) => a.status !== 400 || a.field !== 'taskId')).toEqual([]);

    // Every nominal time of the attacked window ran as an occurrence, none skipped.
    const nominal = ids.filter((_, i) => ((start + i * 1000) / 1000) % EVERY_SECONDS === 0);
    await waitFor(
      () => {
        const seen = new Set(firstCalls(h.receiver, scheduleId).map((call) => call.body.taskId as string));
        return nominal.every((id) => seen.has(id));
      },
      { timeoutMs: AHEAD * 1000 + 40_000, what: `the occurrences ${nominal[0]} .. ${nominal.at(-1)}` },
    );
    expect(nominal.length).toBeGreaterThanOrEqual(AHEAD / EVERY_SECONDS - 1);
    // No squatter's callback, and each id is the occurrence, as the owner's full key reads it.
    expect(h.receiver.received.filter((call) => call.path === '/squat')).toEqual([]);
    for (const taskId of nominal) {
      const task = await h.call('GET', `/api/v1/tasks/${taskId}`, { key: key('alice') });
      expect(task.status, taskId).toBe(200);
      expect(task.body.taskType).toBe('report.squat');
      expect(task.body.callbackUrl).toBe(`${h.receiver.url}/occ`);
    }
    // Nothing of the squat type exists in Temporal at all.
    const squats = await h.client.workflow.count(`TaskType = 'squat.task' AND Owner = 'alice'`);
    expect(squats.count).toBe(0);
    expect(await deleteSchedule(h, scheduleId, { key: key('alice') })).toBe(204);
  }, 180_000);

  it('leave other ids that end in a time alone: a task id that is not the exact form is created', async () => {
    for (const taskId of [uniqueId('t') + '-2026-12-03T18:00:00', uniqueId('t') + '-2026-12-03']) {
      const created = await h.call('POST', '/api/v1/tasks', {
        key: key('blind'),
        payload: {
          taskId,
          taskType: 'squat.ok',
          payload: {},
          delaySeconds: 3600,
          callbackUrl: `${h.receiver.url}/ok`,
        },
      });
      expect(created.status, taskId).toBe(201);
      await h.client.workflow.getHandle(`alice/${taskId}`).terminate('test cleanup');
    }
  });
});
