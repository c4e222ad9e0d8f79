/**
 * The console's schedules pages over HTTP against the real dev server: the list, one schedule (spec
 * in words, time zone, the next 10 run times exactly as Temporal describes them, paused state with its
 * note, recent occurrences linking to their tasks), pause, resume and trigger, and the forecast's
 * second series. Then from the attacker's side: another owner, a read-only key posting pause, a form
 * without its CSRF token, a key limited to other task types: nothing shown, and the schedule as
 * Temporal holds it (read directly, not through the service) unchanged.
 */
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Scope } from '../../src/auth/principal.js';
import { temporalScheduleId } from '../../src/schedules/input.js';
import { ConsoleClient } from '../helpers/console.js';
import { Harness } from '../helpers/harness.js';
import { SCHEDULE_TEST_ENV } from '../helpers/schedule-env.js';
import { createSchedule, deleteSchedule, uniqueId } from '../helpers/schedules.js';
import { waitFor } from '../helpers/wait.js';

const suffix = randomUUID().slice(0, 8);
const ALICE = `alice-${suffix}`;
const BOB = `bob-${suffix}`;
const CAROL = `carol-${suffix}`;
const TASK_TYPE = `report${suffix}.daily`;
const SECRET = `report-secret-${suffix}`;
const READ: Scope[] = ['tasks:read', 'schedules:read'];
const WRITE: Scope[] = [...READ, 'schedules:write'];

let h: Harness;
let base: string;
let victim: string;

beforeAll(async () => {
  h = await Harness.start({
    env: {
      ...SCHEDULE_TEST_ENV,
      CONSOLE_ENABLED: 'true',
      CONSOLE_SESSION_SECRET: `console-schedules-${suffix}-0123456789abcdef`,
    },
    keys: {
      alice: { owner: ALICE, scopes: WRITE },
      reader: { owner: ALICE, scopes: READ },
      tasksOnly: { owner: ALICE, scopes: ['tasks:read', 'tasks:write'] },
      otherTypes: { owner: ALICE, scopes: WRITE, allowedTaskTypes: [`other${suffix}.*`] },
      bob: { owner: BOB, scopes: WRITE },
      carol: { owner: CAROL, scopes: [...WRITE, 'tasks:write'] },
    },
  });
  await h.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
  victim = uniqueId('console-sched');
  const created = await createSchedule(
    h,
    {
      scheduleId: victim,
      cron: '30 3 * * *',
      timeZone: 'Asia/Shanghai',
      task: { taskType: TASK_TYPE, payload: { secret: SECRET }, callbackUrl: h.receiver.url },
    },
    h.keys.alice!.key,
  );
  expect(created.status).toBe(201);
  // The list comes from visibility, which has the schedule a moment after its creation.
  await waitFor(
    async () =>
      (await h.call('GET', '/api/v1/schedules', { key: h.keys.alice!.key })).body.schedules?.length === 1,
    { what: 'the schedule listed' },
  );
}, 180_000);
afterAll(async () => {
  if (h)
    for (const [id, key] of [[victim, 'alice']] as const)
      await deleteSchedule(h, id, { key: h.keys[key]!.key });
  await h?.stop();
});

async function loggedIn(key: string): Promise<ConsoleClient> {
  const browser = new ConsoleClient(base);
  expect((await browser.login(h.keys[key]!.key)).status).toBe(303);
  return browser;
}

/** The victim as Temporal holds it, asked directly. */
async function inTemporal(owner = ALICE, scheduleId = victim) {
  const description = await h.client.schedule.getHandle(temporalScheduleId(owner, scheduleId)).describe();
  return {
    paused: description.state.paused,
    note: description.state.note ?? '',
    taken: description.info.numActionsTaken,
    next: description.info.nextActionTimes.map((time) => time.toISOString()),
  };
}

/** One series' values in a chart's table, bar by bar. */
function seriesOf(body: string, chart: string, series: string): number[] {
  const table = new RegExp(`<table data-chart-table="${chart}">([\\s\\S]*?)</table>`).exec(body)?.[1];
  if (!table) throw new Error(`no table of chart ${chart}`);
  const headers = [...table.matchAll(/<th>([^<]*)<\/th>/g)].map(([, name]) => name);
  const column = headers.indexOf(series);
  if (column < 0) throw new Error(`no series ${series} in chart ${chart}`);
  return [...table.matchAll(/<tr>\s*<td>[\s\S]*?<\/tr>/g)].map(([row]) => {
    const cells = [...row.matchAll(/<td>([\s\S]*?)<\/td>/g)].map(([, cell]) => cell);
    return Number(cells[column]);
  });
}
const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

describe('the schedules pages', () => {
  it('lists the schedule and shows its spec in words, zone and the next 10 runs as Temporal has them', async () => {
    const browser = await loggedIn('alice');
    const list = await browser.get('/console/schedules');
    expect(list.status).toBe(200);
    expect(list.body).toContain(`data-schedule-id="${victim}"`);
    expect(list.body).toContain('every day at 03:30');
    const page = await browser.get(`/console/schedules/${victim}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain('every day at 03:30 (30 3 * * *), time zone Asia/Shanghai');
    expect(page.body).toContain('data-paused="false"');
    const shown = [...page.body.matchAll(/<li><time datetime="([^"]+)">/g)].map(([, time]) => time);
    const { next } = await inTemporal();
    expect(shown).toHaveLength(10);
    expect(shown).toEqual(next.slice(0, 10));
    // 03:30 in Shanghai is 19:30 UTC the day before.
    for (const time of shown) expect(time!.slice(11, 16)).toBe('19:30');
    expect(page.body).toContain('id="pause-form"');
    expect(page.body).toContain('id="trigger-form"');
  });

  it('pauses and resumes with a note, and triggers one occurrence that links to its task', async () => {
    const browser = await loggedIn('alice');
    await browser.get(`/console/schedules/${victim}`);
    const paused = await browser.post(`/console/schedules/${victim}/pause`, { note: 'receiver maintenance' });
    expect(paused.status).toBe(303);
    expect(await inTemporal()).toMatchObject({ paused: true, note: 'receiver maintenance' });
    const page = await browser.get(paused.location!);
    expect(page.body).toContain('data-paused="true"');
    expect(page.body).toContain('<q>receiver maintenance</q>');
    expect(page.body).toContain('id="resume-form"');
    const resumed = await browser.post(`/console/schedules/${victim}/resume`, { note: 'back' });
    expect(resumed.status).toBe(303);
    expect(await inTemporal()).toMatchObject({ paused: false, note: 'back' });

    const before = (await inTemporal()).taken;
    const triggered = await browser.post(`/console/schedules/${victim}/trigger`, { reason: 'rerun now' });
    expect(triggered.status).toBe(303);
    expect((await inTemporal()).taken).toBe(before + 1);
    // The occurrence's row links to its task page, which shows the task (once visibility lists it).
    const row = await waitFor(
      async () => {
        const body = (await browser.get(`/console/schedules/${victim}`)).body;
        return (
          /<tr data-task-id="([^"]+)">[\s\S]*?status-(SCHEDULED|RUNNING|SUCCEEDED|FAILED)/.exec(body) ??
          undefined
        );
      },
      { what: 'the triggered occurrence with its outcome on the page' },
    );
    const taskId = row[1]!;
    expect(taskId.startsWith(`${victim}-`)).toBe(true);
    const task = await browser.get(`/console/tasks/${encodeURIComponent(taskId)}`);
    expect(task.status).toBe(200);
    expect(task.body).toContain(SECRET);
  });

  it('counts upcoming occurrences in the forecast as a second series, apart from one-shot tasks', async () => {
    const scheduleId = uniqueId('forecast');
    const made = await createSchedule(
      h,
      { scheduleId, every: '15m', task: { taskType: TASK_TYPE, payload: {}, callbackUrl: h.receiver.url } },
      h.keys.carol!.key,
    );
    expect(made.status).toBe(201);
    const oneShot = await h.call('POST', '/api/v1/tasks', {
      key: h.keys.carol!.key,
      payload: {
        taskId: uniqueId('one-shot'),
        taskType: TASK_TYPE,
        payload: {},
        delaySeconds: 1800,
        callbackUrl: h.receiver.url,
      },
    });
    expect(oneShot.status).toBe(201);
    try {
      const browser = await loggedIn('carol');
      // Visibility lists both a moment after their creation; the charts are kept 15 s, so log in anew.
      const overview = await waitFor(
        async () => {
          const body = (await (await loggedIn('carol')).get('/console')).body;
          return sum(seriesOf(body, 'due-by-hour', 'OCCURRENCES')) > 0 &&
            sum(seriesOf(body, 'due-by-hour', 'SCHEDULED')) > 0
            ? body
            : undefined;
        },
        { timeoutMs: 40_000, intervalMs: 2_000, what: 'both series in the forecast' },
      );
      // Every 15 minutes: all 10 runs Temporal lists fall in the next 24 hours, none in SCHEDULED.
      expect(sum(seriesOf(overview, 'due-by-hour', 'OCCURRENCES'))).toBe(10);
      expect(sum(seriesOf(overview, 'due-by-hour', 'SCHEDULED'))).toBe(1);
      const { next } = await inTemporal(CAROL, scheduleId);
      const hourAhead = Math.floor(Date.now() / 60_000) * 60_000 + 3_600_000;
      const inHour = next.filter((time) => Date.parse(time) < hourAhead).length;
      expect(sum(seriesOf(overview, 'due-by-minute', 'OCCURRENCES'))).toBeGreaterThanOrEqual(inHour - 1);
      expect(sum(seriesOf(overview, 'due-by-minute', 'OCCURRENCES'))).toBeLessThanOrEqual(inHour);
      expect(browser.cookies.size).toBeGreaterThan(0);
    } finally {
      expect(await deleteSchedule(h, scheduleId, { key: h.keys.carol!.key })).toBe(204);
    }
  });
});

describe('refused from the attacker side: nothing shown, nothing changed in Temporal', () => {
  it("another owner sees no trace of alice's schedule and cannot pause it", async () => {
    const before = await inTemporal();
    const bob = await loggedIn('bob');
    const list = await bob.get('/console/schedules');
    expect(list.status).toBe(200);
    expect(list.body).not.toContain(victim);
    const page = await bob.get(`/console/schedules/${victim}`);
    expect(page.status).toBe(404);
    expect(page.body).not.toContain(SECRET);
    expect((await bob.post(`/console/schedules/${victim}/pause`, { note: 'hijacked' })).status).toBe(404);
    expect((await bob.post(`/console/schedules/${victim}/trigger`, { reason: 'x' })).status).toBe(404);
    expect((await bob.post(`/console/schedules/${victim}/pause?owner=${ALICE}`, { note: 'x' })).status).toBe(
      403,
    );
    expect(await inTemporal()).toEqual(before);
  });

  it('a read-only key sees no forms and is refused when it posts pause or trigger', async () => {
    const before = await inTemporal();
    const reader = await loggedIn('reader');
    const page = await reader.get(`/console/schedules/${victim}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain('id="schedule-read-only"');
    expect(page.body).not.toContain('id="pause-form"');
    expect(page.body).not.toContain('id="trigger-form"');
    // Its session's CSRF token is valid: only the scope refuses.
    const refused = await reader.post(`/console/schedules/${victim}/pause`, { note: 'hijacked' });
    expect(refused.status).toBe(403);
    expect(refused.body).toContain('PERMISSION_DENIED');
    expect((await reader.post(`/console/schedules/${victim}/trigger`, { reason: 'x' })).status).toBe(403);
    expect(await inTemporal()).toEqual(before);
  });

  it('a form without its CSRF token is refused, even from a key that may pause', async () => {
    const before = await inTemporal();
    const alice = await loggedIn('alice');
    await alice.get(`/console/schedules/${victim}`);
    const forged = await alice.post(
      `/console/schedules/${victim}/pause`,
      { note: 'forged' },
      { csrf: false },
    );
    expect(forged.status).toBe(403);
    expect(forged.body).toContain('CSRF');
    const triggered = await alice.post(
      `/console/schedules/${victim}/trigger`,
      { reason: 'x' },
      { csrf: false },
    );
    expect(triggered.status).toBe(403);
    expect(await inTemporal()).toEqual(before);
  });

  it('a key limited to other task types sees nothing of it and cannot pause or trigger it', async () => {
    const before = await inTemporal();
    const limited = await loggedIn('otherTypes');
    const list = await limited.get('/console/schedules');
    expect(list.status).toBe(200);
    expect(list.body).not.toContain(victim);
    const page = await limited.get(`/console/schedules/${victim}`);
    expect(page.status).toBe(404);
    expect(page.body).not.toContain(SECRET);
    expect(page.body).not.toContain('30 3 * * *');
    expect((await limited.post(`/console/schedules/${victim}/pause`, { note: 'hijacked' })).status).toBe(404);
    expect((await limited.post(`/console/schedules/${victim}/trigger`, { reason: 'x' })).status).toBe(404);
    expect(await inTemporal()).toEqual(before);
  });

  it('a key without schedules:read has no schedules page', async () => {
    const browser = await loggedIn('tasksOnly');
    const overview = await browser.get('/console');
    expect(overview.body).not.toContain('href="/console/schedules"');
    expect((await browser.get('/console/schedules')).status).toBe(403);
    expect((await browser.get(`/console/schedules/${victim}`)).status).toBe(403);
  });
});
