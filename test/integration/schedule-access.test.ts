/**
 * Owners and scopes on every schedule route, from the attacker's side: another owner's key, a key
 * without the schedule scopes, a read-only key, a key limited to other task types, no key. Each
 * request is refused, and the victim's schedule is exactly as it was in Temporal (read directly, not
 * through the API): same spec, still paused with its note, no occurrence started.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness } from '../helpers/harness.js';
import { SCHEDULE_TEST_ENV } from '../helpers/schedule-env.js';
import { createSchedule, deleteSchedule, uniqueId } from '../helpers/schedules.js';

let h: Harness;
beforeAll(async () => {
  h = await Harness.start({
    captureLogs: true,
    env: { ...SCHEDULE_TEST_ENV },
    keys: {
      alice: { owner: 'alice', scopes: ['schedules:read', 'schedules:write'] },
      bob: { owner: 'bob', scopes: ['schedules:read', 'schedules:write'] },
      tasksOnly: { owner: 'alice', scopes: ['tasks:read', 'tasks:write'] },
      reader: { owner: 'alice', scopes: ['schedules:read'] },
      writer: { owner: 'alice', scopes: ['schedules:write'] },
      otherTypes: {
        owner: 'alice',
        scopes: ['schedules:read', 'schedules:write'],
        allowedTaskTypes: ['other.*'],
      },
      admin: { owner: 'ops', scopes: ['admin'] },
    },
  });
});
afterAll(async () => {
  await h?.stop();
});

const key = (name: string) => h.keys[name]!.key;

/** Every schedule route on one schedule id, with a body it would accept. */
function routes(
  scheduleId: string,
  query = '',
): { method: 'GET' | 'POST' | 'PATCH' | 'DELETE'; url: string; payload?: unknown }[] {
  const base = `/api/v1/schedules/${scheduleId}`;
  return [
    { method: 'GET', url: `${base}${query}` },
    { method: 'PATCH', url: `${base}${query}`, payload: { cron: '5 5 * * *' } },
    { method: 'POST', url: `${base}/pause${query}`, payload: { note: 'hijacked' } },
    { method: 'POST', url: `${base}/resume${query}`, payload: { note: 'hijacked' } },
    { method: 'POST', url: `${base}/trigger${query}` },
    {
      method: 'POST',
      url: `${base}/backfill${query}`,
      payload: { startAt: '2025-01-01T00:00:00Z', endAt: '2026-01-02T00:00:00Z' },
    },
    { method: 'DELETE', url: `${base}${query}` },
  ];
}

async function send(route: ReturnType<typeof routes>[number], as?: string) {
  const response = await h.app.inject({
    method: route.method,
    url: route.url,
    headers: as ? { authorization: `Bearer ${key(as)}` } : {},
    ...(route.payload === undefined ? {} : { payload: route.payload as object }),
  });
  return {
    status: response.statusCode,
    body: response.body ? (JSON.parse(response.body) as any) : undefined,
  };
}

let victim: string;
const victimTaskType = () => `report.${victim.slice(-8)}`;

/** The victim's schedule as Temporal holds it, asked directly. */
async function victimInTemporal() {
  const description = await h.client.schedule.getHandle(`alice/${victim}`).describe();
  return {
    paused: description.state.paused,
    note: description.state.note,
    taken: description.info.numActionsTaken,
    recent: description.info.recentActions.length,
    minutes: JSON.stringify(description.spec.calendars?.[0]?.minute),
  };
}
let before: Awaited<ReturnType<typeof victimInTemporal>>;

beforeAll(async () => {
  victim = uniqueId('victim');
  const created = await createSchedule(
    h,
    {
      scheduleId: victim,
      cron: '0 2 * * *',
      paused: true,
      note: 'original',
      task: { taskType: victimTaskType(), payload: { secret: 'alice-only' }, callbackUrl: h.receiver.url },
    },
    key('alice'),
  );
  expect(created.status).toBe(201);
  before = await victimInTemporal();
});

describe('another owner', () => {
  it("answers 404 SCHEDULE_NOT_FOUND on every route for alice's schedule, and changes nothing", async () => {
    for (const route of routes(victim)) {
      const answer = await send(route, 'bob');
      expect(answer.status, `${route.method} ${route.url}`).toBe(404);
      expect(answer.body.error.code).toBe('SCHEDULE_NOT_FOUND');
    }
    expect(await victimInTemporal()).toEqual(before);
    expect(h.receiver.received.filter((call) => call.body.taskType === victimTaskType())).toHaveLength(0);
  });

  it('is refused 403 on every route when naming alice as the owner, and changes nothing', async () => {
    for (const route of routes(victim, '?owner=alice')) {
      const answer = await send(route, 'bob');
      expect(answer.status, `${route.method} ${route.url}`).toBe(403);
      expect(answer.body.error.code).toBe('PERMISSION_DENIED');
    }
    expect(await victimInTemporal()).toEqual(before);
  });

  it("does not list alice's schedules, and the same id is bob's own schedule", async () => {
    const list = await h.call('GET', '/api/v1/schedules', { key: key('bob') });
    expect(list.status).toBe(200);
    expect(list.body.schedules.map((s: { scheduleId: string }) => s.scheduleId)).not.toContain(victim);
    const own = await createSchedule(
      h,
      {
        scheduleId: victim,
        cron: '0 3 * * *',
        task: { taskType: 'report.bob', payload: {}, callbackUrl: h.receiver.url },
      },
      key('bob'),
    );
    expect(own.status).toBe(201);
    expect(own.body.owner).toBe('bob');
    expect(await victimInTemporal()).toEqual(before);
    expect(await deleteSchedule(h, victim, { key: key('bob') })).toBe(204);
    expect(await victimInTemporal()).toEqual(before);
  });
});

describe('scopes', () => {
  it('a key without the schedule scopes is refused 403 on every route, create and list included', async () => {
    for (const route of [
      ...routes(victim),
      { method: 'GET' as const, url: '/api/v1/schedules' },
      {
        method: 'POST' as const,
        url: '/api/v1/schedules',
        payload: {
          scheduleId: uniqueId('nope'),
          every: '1h',
          task: { taskType: 'x.y', payload: {}, callbackUrl: h.receiver.url },
        },
      },
    ]) {
      const answer = await send(route, 'tasksOnly');
      expect(answer.status, `${route.method} ${route.url}`).toBe(403);
      expect(answer.body.error.code).toBe('PERMISSION_DENIED');
    }
    expect(await victimInTemporal()).toEqual(before);
  });

  it('a read-only key reads but is refused 403 on every write', async () => {
    const [get, ...writes] = routes(victim);
    expect((await send(get!, 'reader')).status).toBe(200);
    for (const route of writes)
      expect((await send(route, 'reader')).status, `${route.method} ${route.url}`).toBe(403);
    expect(await victimInTemporal()).toEqual(before);
  });

  it('no key: 401 on every route', async () => {
    for (const route of routes(victim)) expect((await send(route)).status).toBe(401);
    expect(await victimInTemporal()).toEqual(before);
  });

  it('a key limited to other task types finds this schedule absent on every route and is refused creating one', async () => {
    const absent = uniqueId('absent');
    for (const route of routes(victim)) {
      const answer = await send(route, 'otherTypes');
      // The same answer as for an id that does not exist: no type, no existence.
      const none = await send({ ...route, url: route.url.replace(victim, absent) }, 'otherTypes');
      expect(answer.status, `${route.method} ${route.url}`).toBe(404);
      expect(JSON.stringify(answer.body).replaceAll(victim, 'ID')).toBe(
        JSON.stringify(none.body).replaceAll(absent, 'ID'),
      );
      expect(JSON.stringify(answer.body)).not.toContain('report.');
    }
    const scheduleId = uniqueId('typed');
    const create = await createSchedule(
      h,
      { scheduleId, every: '1h', task: { taskType: 'report.x', payload: {}, callbackUrl: h.receiver.url } },
      key('otherTypes'),
    );
    expect(create.status).toBe(403);
    expect(create.body.error!.details![0]!.field).toBe('task.taskType');
    expect(await victimInTemporal()).toEqual(before);
  });

  it("a write-only key's answers leave out the task's payload and callback URL", async () => {
    const answer = await send(
      { method: 'POST', url: `/api/v1/schedules/${victim}/pause`, payload: { note: 'original' } },
      'writer',
    );
    expect(answer.status).toBe(200);
    expect(answer.body.task.payload).toBeUndefined();
    expect(answer.body.task.callbackUrl).toBeUndefined();
    expect(answer.body.task.taskType).toBe(victimTaskType());
  });

  it("an admin key acts on alice's schedule with ?owner=alice", async () => {
    const answer = await send({ method: 'GET', url: `/api/v1/schedules/${victim}?owner=alice` }, 'admin');
    expect(answer.status).toBe(200);
    expect(answer.body.task.payload).toEqual({ secret: 'alice-only' });
  });
});

describe('audit', () => {
  it('every state-changing call leaves one audit line naming the schedule, also when refused', () => {
    const audits = h.logLines
      .map((line) => line.audit as Record<string, unknown> | undefined)
      .filter((audit): audit is Record<string, unknown> => audit?.scheduleId === victim);
    expect(
      audits.some((a) => a.action === 'createSchedule' && a.owner === 'alice' && a.outcome === 'ok'),
    ).toBe(true);
    expect(
      audits.some((a) => a.action === 'pauseSchedule' && a.status === 404 && a.keyId === h.keys.bob!.keyId),
    ).toBe(true);
    expect(audits.some((a) => a.action === 'deleteSchedule' && a.status === 403)).toBe(true);
  });
});
