/**
 * A key's limits (task types, callback hosts, scopes, rate) hold for schedules as for tasks, asked
 * from the attacker's side and checked on the server: a list shows exactly what a get answers (API
 * and console); a backfill counts each run against the rate limit and its audit line says how many;
 * a create conflict tells a limited key no more than that the id is taken (ids are owner-wide); the
 * derived data (recent occurrences, the forecast's occurrences) needs its scopes; and parallel creates
 * stop at the per-owner limit.
 */
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleClient } from '../helpers/console.js';
import { Harness } from '../helpers/harness.js';
import { SCHEDULE_TEST_ENV } from '../helpers/schedule-env.js';
import { createSchedule, firstCalls, uniqueId } from '../helpers/schedules.js';
import { waitFor } from '../helpers/wait.js';

const suffix = randomUUID().slice(0, 8);
const MINE = `mine${suffix}`;
const HIDDEN = `report${suffix}`;
const RATE = 10;
const ALL = ['tasks:read', 'tasks:write', 'schedules:read', 'schedules:write'] as const;

let h: Harness;
let base: string;
beforeAll(async () => {
  h = await Harness.start({
    captureLogs: true,
    env: {
      ...SCHEDULE_TEST_ENV,
      SCHEDULE_MIN_INTERVAL_SECONDS: '1',
      RATE_LIMIT_PER_MINUTE: '100000',
      CONSOLE_ENABLED: 'true',
      CONSOLE_SESSION_SECRET: `schedule-key-limits-${suffix}-0123456789abcdef`,
    },
    keys: {
      alice: { owner: 'alice', scopes: [...ALL] },
      hosts: { owner: 'alice', scopes: [...ALL], allowedCallbackHosts: ['127.0.0.1'] },
      types: { owner: 'alice', scopes: [...ALL], allowedTaskTypes: [`${MINE}.*`] },
      writer: { owner: 'alice', scopes: ['schedules:write'] },
      reader: { owner: 'alice', scopes: ['schedules:read'] },
      tasksReader: { owner: 'alice', scopes: ['tasks:read'] },
      rationed: { owner: 'alice', scopes: ['schedules:read', 'schedules:write'], requestsPerMinute: RATE },
    },
  });
  await h.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
}, 120_000);
afterAll(async () => {
  await h?.stop();
});

const key = (name: string) => h.keys[name]!.key;
const ids = (list: { schedules: { scheduleId: string }[] }) => list.schedules.map((s) => s.scheduleId);
/** A callback URL on the receiver whose host is `localhost`: outside the `hosts` key's limits. */
const elsewhere = (path: string) => `${h.receiver.url.replace('127.0.0.1', 'localhost')}${path}`;

async function schedule(id: string, taskType: string, callbackUrl: string, extra: object = {}) {
  const created = await createSchedule(
    h,
    { scheduleId: id, every: '1h', task: { taskType, payload: { secret: id }, callbackUrl }, ...extra },
    key('alice'),
  );
  expect(created.status, JSON.stringify(created.body)).toBe(201);
}

/** Every page of the schedules list as `as` sees it, with `query`. */
async function listed(as: string, query = ''): Promise<string[]> {
  const page = await h.call('GET', `/api/v1/schedules?pageSize=1000${query}`, { key: key(as) });
  expect(page.status).toBe(200);
  return ids(page.body);
}

const victim = uniqueId('victim'); // another host
const foreignType = uniqueId('typed'); // another type, our host
const seen = uniqueId('seen'); // within every limit

beforeAll(async () => {
  await schedule(victim, `${HIDDEN}.victim`, elsewhere('/victim'));
  await schedule(foreignType, `other${suffix}.x`, `${h.receiver.url}/typed`);
  await schedule(seen, `${MINE}.seen`, `${h.receiver.url}/seen`);
  await waitFor(
    async () => {
      const all = await listed('alice');
      return [victim, foreignType, seen].every((id) => all.includes(id));
    },
    { what: 'the three schedules listed' },
  );
}, 60_000);

describe('lists show exactly what a get answers', () => {
  it.each([
    { as: 'hosts', visible: [foreignType, seen], hidden: [victim] },
    { as: 'types', visible: [seen], hidden: [victim, foreignType] },
    { as: 'alice', visible: [victim, foreignType, seen], hidden: [] },
  ])('$as: the API list and the console list hold the schedules a get answers, no other', async (c) => {
    const api = await listed(c.as);
    const page = await h.call('GET', `/api/v1/schedules?pageSize=1000`, { key: key(c.as) });
    const browser = new ConsoleClient(base);
    expect((await browser.login(key(c.as))).status).toBe(303);
    const consoleList = (await browser.get('/console/schedules')).body;
    for (const id of [...c.visible, ...c.hidden]) {
      const get = await h.call('GET', `/api/v1/schedules/${id}`, { key: key(c.as) });
      const shown = c.visible.includes(id);
      expect(get.status, `GET ${id} as ${c.as}`).toBe(shown ? 200 : 404);
      expect(api.includes(id), `API list of ${c.as} has ${id}`).toBe(shown);
      expect(consoleList.includes(id), `console list of ${c.as} has ${id}`).toBe(shown);
    }
    if (c.hidden.length > 0) {
      // Nothing of a hidden schedule at all: not its type, cron, note or next run.
      expect(JSON.stringify(page.body)).not.toContain(HIDDEN);
      expect(consoleList).not.toContain(HIDDEN);
    }
  });
});

describe('backfill counts its runs', () => {
  const backfilled = uniqueId('backfill');
  beforeAll(async () => {
    await schedule(backfilled, `${MINE}.bf`, `${h.receiver.url}/bf`, { every: '1m', paused: true });
  });
  const minutes = (from: number, to: number) => {
    const now = Math.floor(Date.now() / 60_000) * 60_000;
    return {
      startAt: new Date(now - from * 60_000 - 30_000).toISOString(),
      endAt: new Date(now - to * 60_000 - 30_000).toISOString(),
    };
  };
  const range = minutes(10, 5); // 5 run times

  it('a range of more runs than the key has left is refused 429 and starts nothing', async () => {
    const answer = await h.call('POST', `/api/v1/schedules/${backfilled}/backfill`, {
      key: key('rationed'),
      payload: minutes(40, 10), // 30 run times, over the key's 10 a minute
    });
    expect(answer.status).toBe(429);
    expect(answer.body.error.code).toBe('RESOURCE_EXHAUSTED');
    const description = await h.client.schedule.getHandle(`alice/${backfilled}`).describe();
    expect(description.info.numActionsTaken).toBe(0);
    expect(description.info.recentActions).toHaveLength(0);
  });

  it('a range that fits counts one request per run, and its audit line says how many', async () => {
    const answer = await h.call('POST', `/api/v1/schedules/${backfilled}/backfill`, {
      key: key('rationed'),
      payload: range,
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    // 10 a minute: the refused call above used one, this one five, the next GET one.
    const next = await h.call('GET', `/api/v1/schedules/${backfilled}`, { key: key('rationed') });
    expect(next.headers['x-ratelimit-remaining']).toBe(String(RATE - 1 - 5 - 1));
    const audit = h.logLines
      .map((line) => line.audit as Record<string, unknown> | undefined)
      .find((a) => a?.scheduleId === backfilled && a.action === 'backfillSchedule' && a.status === 200);
    expect(audit?.runs).toBe(5);
    await waitFor(() => firstCalls(h.receiver, backfilled).length >= 5, {
      timeoutMs: 60_000,
      what: '5 backfilled occurrences delivered',
    });
    // The next range of 5 does not fit in the 3 left.
    const over = await h.call('POST', `/api/v1/schedules/${backfilled}/backfill`, {
      key: key('rationed'),
      payload: minutes(20, 15),
    });
    expect(over.status).toBe(429);
  }, 90_000);

  it('a repeated range starts the same occurrence ids with the same Idempotency-Key', async () => {
    const before = firstCalls(h.receiver, backfilled);
    const keys = new Set(before.map((call) => call.headers['idempotency-key']));
    expect(keys.size).toBe(5);
    const again = await h.call('POST', `/api/v1/schedules/${backfilled}/backfill`, {
      key: key('alice'),
      payload: range,
    });
    expect(again.status).toBe(200);
    // Temporal's scheduler records the repeated run times as actions of their own.
    await waitFor(
      async () =>
        (await h.client.schedule.getHandle(`alice/${backfilled}`).describe()).info.numActionsTaken >= 10,
      { timeoutMs: 60_000, what: 'the repeated range taken' },
    );
    const repeated = await waitFor(
      () => {
        const calls = firstCalls(h.receiver, backfilled);
        return calls.length >= 10 && calls;
      },
      { timeoutMs: 60_000, what: 'the repeated occurrences delivered again' },
    );
    const after = new Set(repeated.map((call) => call.headers['idempotency-key']));
    expect(after).toEqual(keys);
    expect(new Set(repeated.map((call) => call.body.taskId))).toEqual(
      new Set(before.map((c) => c.body.taskId)),
    );
  }, 150_000);
});

describe('a create conflict: ids are owner-wide, and the 409 says nothing more', () => {
  /** A 409's body with the id written as ID: what two conflicts must share. */
  const shape = (body: unknown, id: string) => JSON.stringify(body).replaceAll(id, 'ID');

  it('a task id taken by a task the key cannot see answers as one it can see, and changes nothing', async () => {
    const hiddenId = uniqueId('hidden');
    const created = await h.call('POST', '/api/v1/tasks', {
      key: key('alice'),
      payload: {
        taskId: hiddenId,
        taskType: `${HIDDEN}.t`,
        payload: { secret: 'alice-only' },
        delaySeconds: 3600,
        callbackUrl: elsewhere('/hidden'),
      },
    });
    expect(created.status).toBe(201);
    const ownId = uniqueId('own');
    const mine = (taskId: string, n: number) => ({
      taskId,
      taskType: `${MINE}.t`,
      payload: { n },
      delaySeconds: 3600,
      callbackUrl: `${h.receiver.url}/own`,
    });
    for (const as of ['hosts', 'types']) {
      expect(
        (await h.call('POST', '/api/v1/tasks', { key: key(as), payload: mine(`${ownId}-${as}`, 1) })).status,
      ).toBe(201);
      const visible = await h.call('POST', '/api/v1/tasks', {
        key: key(as),
        payload: mine(`${ownId}-${as}`, 2),
      });
      const hidden = await h.call('POST', '/api/v1/tasks', { key: key(as), payload: mine(hiddenId, 2) });
      expect(visible.status).toBe(409);
      expect(hidden.status).toBe(409);
      expect(shape(hidden.body, hiddenId)).toBe(shape(visible.body, `${ownId}-${as}`));
      const batch = await h.call('POST', '/api/v1/tasks/batch', {
        key: key(as),
        payload: { tasks: [mine(hiddenId, 3), mine(`${ownId}-${as}`, 3)] },
      });
      const [onHidden, onVisible] = batch.body.results as { status: number; error: unknown }[];
      expect(onHidden!.status).toBe(409);
      expect(shape(onHidden!.error, hiddenId)).toBe(shape(onVisible!.error, `${ownId}-${as}`));
      for (const answer of [hidden.body, onHidden]) {
        expect(JSON.stringify(answer)).not.toContain(HIDDEN);
        expect(JSON.stringify(answer)).not.toContain('localhost');
      }
    }
    const after = await h.call('GET', `/api/v1/tasks/${hiddenId}`, { key: key('alice') });
    expect(after.body).toMatchObject({
      status: 'SCHEDULED',
      payload: { secret: 'alice-only' },
      taskType: `${HIDDEN}.t`,
    });
  });

  it('a schedule id taken by a schedule the key cannot see answers 409 with nothing of it, and changes nothing', async () => {
    const before = await h.client.schedule.getHandle(`alice/${victim}`).describe();
    const answer = await createSchedule(
      h,
      {
        scheduleId: victim,
        every: '2h',
        task: { taskType: `${MINE}.s`, payload: {}, callbackUrl: h.receiver.url },
      },
      key('hosts'),
    );
    expect(answer.status).toBe(409);
    expect(answer.body.error!.code).toBe('SCHEDULE_CONFLICT');
    expect(JSON.stringify(answer.body)).not.toContain(HIDDEN);
    expect(JSON.stringify(answer.body)).not.toContain('localhost');
    const after = await h.client.schedule.getHandle(`alice/${victim}`).describe();
    expect(after.action).toEqual(before.action);
    expect(after.spec).toEqual(before.spec);
  });
});

describe('derived data needs its scopes', () => {
  it("the overview's occurrences series needs schedules:read", async () => {
    const overview = async (as: string) => {
      const browser = new ConsoleClient(base);
      expect((await browser.login(key(as))).status).toBe(303);
      return (await browser.get('/console')).body;
    };
    expect(await overview('alice')).toContain('OCCURRENCES');
    expect(await overview('tasksReader')).not.toContain('OCCURRENCES');
  });

  it('recent occurrences (task ids and statuses) need tasks:read, in every schedule answer', async () => {
    expect((await h.call('POST', `/api/v1/schedules/${seen}/trigger`, { key: key('alice') })).status).toBe(
      200,
    );
    const withOccurrence = await waitFor(
      async () => {
        const got = await h.call('GET', `/api/v1/schedules/${seen}`, { key: key('alice') });
        return got.body.recentOccurrences.length > 0 && got.body;
      },
      { what: 'the triggered occurrence listed' },
    );
    const taskId = withOccurrence.recentOccurrences[0].taskId as string;
    const pause = await h.call('POST', `/api/v1/schedules/${seen}/pause`, {
      key: key('writer'),
      payload: { note: 'n' },
    });
    const get = await h.call('GET', `/api/v1/schedules/${seen}`, { key: key('reader') });
    for (const answer of [pause, get]) {
      expect(answer.status).toBe(200);
      expect(answer.body.recentOccurrences).toEqual([]);
      expect(JSON.stringify(answer.body)).not.toContain(taskId);
    }
  });
});

describe('the per-owner schedule limit under parallel creates', () => {
  let limited: Harness;
  beforeAll(async () => {
    limited = await Harness.start({
      workers: false,
      env: { ...SCHEDULE_TEST_ENV, SCHEDULES_MAX_PER_OWNER: '5', RATE_LIMIT_PER_MINUTE: '100000' },
      keys: {
        racer: { owner: `racer-${suffix}`, scopes: ['schedules:read', 'schedules:write'] },
        runner: { owner: `runner-${suffix}`, scopes: ['schedules:read', 'schedules:write'] },
      },
    });
  }, 60_000);
  afterAll(async () => {
    await limited?.stop();
  });

  it.each([
    { as: 'racer', parallel: 20 },
    { as: 'runner', parallel: 30 },
  ])(
    '$parallel parallel creates make exactly 5 schedules',
    async ({ as, parallel }) => {
      const answers = await Promise.all(
        Array.from({ length: parallel }, () =>
          createSchedule(
            limited,
            {
              scheduleId: uniqueId('race'),
              cron: '0 3 * * *',
              paused: true,
              task: { taskType: 'race.x', payload: {}, callbackUrl: limited.receiver.url },
            },
            limited.keys[as]!.key,
          ),
        ),
      );
      const created = answers.filter((a) => a.status === 201);
      expect(created).toHaveLength(5);
      expect(answers.filter((a) => a.status !== 201).map((a) => a.body.error?.code)).toEqual(
        Array(parallel - 5).fill('SCHEDULE_LIMIT_EXCEEDED'),
      );
      // Temporal holds exactly those five, asked directly.
      const owner = limited.keys[as]!.entry.owner;
      const count = await waitFor(
        async () => {
          let n = 0;
          for await (const _ of limited.client.schedule.list({ query: `Owner = '${owner}'` })) n++;
          return n >= 5 && n;
        },
        { what: `${owner}'s schedules listed` },
      );
      expect(count).toBe(5);
    },
    60_000,
  );
});
