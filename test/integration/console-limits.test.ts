/**
 * The console keeps to the API's access rules, asked from the attacker's side over HTTP (the app
 * listening on loopback, the real dev server): a key limited to some task types or callback hosts sees
 * nothing of its owner's other tasks on any page (task, replay form, list, overview counts, type page,
 * charts, bulk), where a task outside its limits looks exactly like an absent one; and a key over its
 * rate limit on the API is refused in the console too, its reschedule not taking effect on the server.
 */
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_COOKIE } from '../../src/console/plugin.js';
import { ConsoleClient } from '../helpers/console.js';
import { Harness } from '../helpers/harness.js';
import { uniqueId } from '../helpers/tasks.js';
import { waitFor } from '../helpers/wait.js';

const suffix = randomUUID().slice(0, 8);
const OWNER = `shop-${suffix}`;
const OTHER_OWNER = `depot-${suffix}`;
/** The limited keys' types, and the type they must not see: unique to this run, so counts are exact. */
const ORDER_TYPE = `order${suffix}.close`;
const COUPON_TYPE = `coupon${suffix}.expire`;
const SECRET = `coupon-secret-${suffix}`;
const CALLBACK_PATH = `/coupon-callback-${suffix}`;
const RATE = 6;

let h: Harness;
let base: string;
/** The fixture: one task of each type of OWNER, due in 30 minutes. */
let couponId: string;
let orderId: string;

beforeAll(async () => {
  h = await Harness.start({
    env: { CONSOLE_ENABLED: 'true', CONSOLE_SESSION_SECRET: `console-limits-secret-${suffix}-0123456789` },
    keys: {
      full: { owner: OWNER, scopes: ['tasks:read', 'tasks:write'] },
      ordersOnly: {
        owner: OWNER,
        scopes: ['tasks:read', 'tasks:write'],
        allowedTaskTypes: [`order${suffix}.*`],
      },
      hostOnly: {
        owner: OWNER,
        scopes: ['tasks:read', 'tasks:write'],
        allowedCallbackHosts: ['partner.test'],
      },
      limitedAdmin: { owner: OWNER, scopes: ['admin'], allowedTaskTypes: [`order${suffix}.*`] },
      // `_` is a wildcard of SQL's LIKE, which visibility's STARTS_WITH may use: it must match itself only.
      underscore: { owner: OWNER, scopes: ['tasks:read'], allowedTaskTypes: [`ord_r${suffix}.*`] },
      depot: { owner: OTHER_OWNER, scopes: ['tasks:read', 'tasks:write'] },
      rationed: { owner: OTHER_OWNER, scopes: ['tasks:read', 'tasks:write'], requestsPerMinute: RATE },
      rationedToo: { owner: OTHER_OWNER, scopes: ['tasks:read'], requestsPerMinute: 3 },
    },
  });
  await h.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(h.app.server!.address() as AddressInfo).port}`;
  couponId = await create('full', COUPON_TYPE, { secret: SECRET }, `${h.receiver.url}${CALLBACK_PATH}`);
  orderId = await create('full', ORDER_TYPE, { note: 'an order' }, h.receiver.url);
  // Visibility has both before any page counts them.
  await waitFor(
    async () => {
      const listed = await api('GET', `/api/v1/tasks?pageSize=10`, 'full');
      return (listed.body.tasks as { taskId: string }[]).length === 2;
    },
    { what: 'both tasks listed' },
  );
}, 180_000);
afterAll(async () => {
  await h?.stop();
});

/** A call to the JSON API over HTTP with one of the test's keys. */
async function api(
  method: 'GET' | 'POST',
  path: string,
  key: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${h.keys[key]!.key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

async function create(key: string, taskType: string, payload: object, callbackUrl: string): Promise<string> {
  const taskId = uniqueId('limits');
  const created = await api('POST', '/api/v1/tasks', key, {
    taskId,
    taskType,
    payload,
    delaySeconds: 1800,
    callbackUrl,
  });
  expect(created.status).toBe(201);
  return taskId;
}

async function loggedIn(key: string): Promise<ConsoleClient> {
  const browser = new ConsoleClient(base);
  expect((await browser.login(h.keys[key]!.key)).status).toBe(303);
  return browser;
}

/** A page with what differs between two requests of the same page taken out: the CSRF token, an id. */
function normalized(body: string, taskId: string): string {
  return body.replaceAll(taskId, '<id>').replace(/name="_csrf" value="[^"]+"/g, 'name="_csrf"');
}

/** The sum of the bars of one chart on a page (each bar's `data-total`). */
function chartTotal(body: string, chart: string): number {
  const figure = new RegExp(`<figure class="chart" data-chart="${chart}">([\\s\\S]*?)</figure>`).exec(body);
  if (!figure) throw new Error(`no chart ${chart} on the page`);
  return [...figure[1]!.matchAll(/data-total="(\d+)"/g)].reduce((sum, [, n]) => sum + Number(n), 0);
}

/** Nothing of the coupon task: not its id, payload, callback URL or (unless typed into a filter) type. */
function expectNothingOfCoupon(body: string, typeTyped = false): void {
  expect(body).not.toContain(couponId);
  expect(body).not.toContain(SECRET);
  expect(body).not.toContain(CALLBACK_PATH);
  if (!typeTyped) expect(body).not.toContain(COUPON_TYPE);
}

describe('a key limited to some task types or callback hosts, in the console', () => {
  it('the control: an unlimited key of the owner sees the coupon task everywhere', async () => {
    const browser = await loggedIn('full');
    const task = await browser.get(`/console/tasks/${couponId}`);
    expect(task.status).toBe(200);
    expect(task.body).toContain(SECRET);
    expect(task.body).toContain(CALLBACK_PATH);
    expect((await browser.get(`/console/tasks/${couponId}/replay`)).body).toContain(SECRET);
    expect((await browser.get('/console/tasks')).body).toContain(couponId);
    const overview = await browser.get('/console');
    expect(overview.body).toContain(COUPON_TYPE);
    expect(chartTotal(overview.body, 'due-by-hour')).toBe(2);
    expect(chartTotal((await browser.get(`/console/types/${COUPON_TYPE}`)).body, 'due-by-hour')).toBe(1);
  });

  it.each([
    ['ordersOnly', () => couponId],
    ['hostOnly', () => couponId],
    ['hostOnly', () => orderId],
  ])(
    "%s: another type's or host's task page and replay form answer exactly as an absent task",
    async (key, hiddenId) => {
      const browser = await loggedIn(key);
      const taskId = hiddenId();
      const absentId = uniqueId('absent');
      for (const path of ['', '/replay']) {
        const hidden = await browser.get(`/console/tasks/${taskId}${path}`);
        const absent = await browser.get(`/console/tasks/${absentId}${path}`);
        expect(hidden.status).toBe(404);
        expect(hidden.body).not.toContain(SECRET);
        expect(hidden.body).not.toContain(CALLBACK_PATH);
        expect(hidden.body).not.toContain(h.receiver.url);
        expect(normalized(hidden.body, taskId)).toBe(normalized(absent.body, absentId));
      }
      // A replay form sent with a payload the form refuses re-renders the task's page: not this one.
      const posted = await browser.post(`/console/tasks/${taskId}/replay`, {
        payload: '{',
        payloadVersion: '1',
        maxRetries: '1',
        reason: 'probe',
      });
      expect(posted.status).toBe(404);
      expect(posted.body).not.toContain(SECRET);
      expect(posted.body).not.toContain(h.receiver.url);
      // Its actions answer as an absent task's, and do nothing on the server.
      const before = (await api('GET', `/api/v1/tasks/${taskId}`, 'full')).body;
      const later = new Date(Date.now() + 7_200_000).toISOString().slice(0, 16);
      const moved = await browser.post(`/console/tasks/${taskId}/reschedule`, {
        executeAt: later,
        reason: 'x',
      });
      expect(moved.status).toBe(404);
      expect((await browser.post(`/console/tasks/${taskId}/cancel`, { reason: 'x' })).status).toBe(404);
      const after = (await api('GET', `/api/v1/tasks/${taskId}`, 'full')).body;
      expect([after.status, after.executeAt]).toEqual(['SCHEDULED', before.executeAt]);
    },
  );

  it('lists none of the tasks outside its limits, whatever the filter', async () => {
    for (const key of ['ordersOnly', 'hostOnly', 'limitedAdmin']) {
      const browser = await loggedIn(key);
      for (const query of ['', '?status=SCHEDULED', `?taskType=${COUPON_TYPE}`]) {
        const list = await browser.get(`/console/tasks${query}`);
        expect(list.status).toBe(200);
        expectNothingOfCoupon(list.body, query.includes(COUPON_TYPE));
      }
      const byId = await browser.get(`/console/tasks?idPrefix=${couponId}`);
      expect(byId.body).not.toContain(`data-task-id="${couponId}"`);
      expect(byId.body).toContain('No tasks match.');
      const own = await browser.get(`/console/tasks?idPrefix=${orderId}`);
      expect(own.body.includes(`data-task-id="${orderId}"`)).toBe(key !== 'hostOnly');
    }
  });

  it("counts only its own types on the overview and the charts, and another type's page counts nothing", async () => {
    const orders = await loggedIn('ordersOnly');
    const overview = await orders.get('/console');
    expect(overview.status).toBe(200);
    expectNothingOfCoupon(overview.body);
    expect(overview.body).toContain(ORDER_TYPE);
    expect(chartTotal(overview.body, 'due-by-hour')).toBe(1);
    expect(chartTotal(overview.body, 'due-by-minute')).toBe(1);
    const typePage = await orders.get(`/console/types/${COUPON_TYPE}`);
    expect(typePage.status).toBe(200);
    for (const chart of ['due-by-minute', 'due-by-hour', 'outcomes-by-hour'])
      expect(chartTotal(typePage.body, chart)).toBe(0);
    expect(chartTotal((await orders.get(`/console/types/${ORDER_TYPE}`)).body, 'due-by-hour')).toBe(1);

    // An admin key limited to the order types: its namespace-wide counts are of those types only.
    const admin = await loggedIn('limitedAdmin');
    const adminOverview = await admin.get('/console');
    expectNothingOfCoupon(adminOverview.body);
    expect(/data-count="SCHEDULED">(\d+)</.exec(adminOverview.body)?.[1]).toBe('1');
    expect(chartTotal(adminOverview.body, 'due-by-hour')).toBe(1);
    expect(adminOverview.body).toContain('data-lag="admins-only"');
    const adminType = await admin.get(`/console/types/${COUPON_TYPE}`);
    expect(chartTotal(adminType.body, 'due-by-hour')).toBe(0);

    const underscore = await loggedIn('underscore');
    const none = await underscore.get('/console');
    expect(none.body).not.toContain(ORDER_TYPE);
    expect(chartTotal(none.body, 'due-by-hour')).toBe(0);

    // Visibility cannot count by callback host: a host-limited key gets no counts at all.
    const hosts = await loggedIn('hostOnly');
    for (const path of ['/console', `/console/types/${COUPON_TYPE}`, `/console/types/${ORDER_TYPE}`]) {
      const body = (await hosts.get(path)).body;
      expect(body).toContain('data-charts="withheld"');
      expect(body).not.toContain('data-chart=');
      expect(body).not.toContain(couponId);
      expect(body).not.toContain(orderId);
    }
  });

  it("refuses a limited admin's bulk action on another type, in the console and on the API, and cancels nothing", async () => {
    const admin = await loggedIn('limitedAdmin');
    const counted = await admin.get(
      `/console/bulk?operation=cancel&taskType=${COUPON_TYPE}&status=SCHEDULED`,
    );
    expect(counted.status).toBe(403);
    expect(counted.body).not.toMatch(/task\(s\) match/);
    const posted = await admin.post('/console/bulk', {
      operation: 'cancel',
      taskType: COUPON_TYPE,
      status: 'SCHEDULED',
      reason: 'probe',
    });
    expect(posted.status).toBe(403);
    const viaApi = await api('POST', '/api/v1/tasks/cancel', 'limitedAdmin', { taskType: COUPON_TYPE });
    expect(viaApi.status).toBe(403);
    const everyType = await api('POST', '/api/v1/tasks/cancel', 'limitedAdmin', { status: 'SCHEDULED' });
    expect(everyType.status).toBe(403);
    expect((await api('GET', `/api/v1/tasks/${couponId}`, 'full')).body.status).toBe('SCHEDULED');
  });
});

describe("a key's rate limit, in the console", () => {
  it('a key answered 429 on the API gets 429 in the console, and its reschedule does not take effect', async () => {
    const taskId = await create('depot', `misc${suffix}.task`, { n: 1 }, h.receiver.url);
    const before = (await api('GET', `/api/v1/tasks/${taskId}`, 'depot')).body.executeAt as string;
    const browser = await loggedIn('rationed'); // 1 request
    const task = await browser.get(`/console/tasks/${taskId}`); // 2
    expect(task.status).toBe(200);
    let allowed = 0;
    for (;;) {
      const answer = await api('GET', `/api/v1/tasks/${taskId}`, 'rationed');
      if (answer.status === 429) break;
      expect(answer.status).toBe(200);
      allowed++;
      expect(allowed).toBeLessThanOrEqual(RATE);
    }
    expect(allowed).toBe(RATE - 2);

    for (const path of ['/console', '/console/tasks', `/console/tasks/${taskId}`]) {
      const page = await browser.get(path);
      expect(page.status).toBe(429);
      expect(page.headers['retry-after']).toBeDefined();
      expect(page.body).not.toContain(taskId);
    }
    const later = new Date(Date.now() + 7_200_000).toISOString().slice(0, 16);
    const moved = await browser.post(`/console/tasks/${taskId}/reschedule`, {
      executeAt: later,
      reason: 'over the limit',
    });
    expect(moved.status).toBe(429);
    // On the server: the task is due when it was.
    const after = (await api('GET', `/api/v1/tasks/${taskId}`, 'depot')).body;
    expect(after.executeAt).toBe(before);
    expect(after.status).toBe('SCHEDULED');
    // Nor does a new login get a session.
    const again = new ConsoleClient(base);
    expect((await again.login(h.keys.rationed!.key)).status).toBe(429);
    expect(again.cookies.has(SESSION_COOKIE)).toBe(false);
  });

  it("the console's pages count against the key's limit on the API", async () => {
    const browser = await loggedIn('rationedToo'); // 1
    expect((await browser.get('/console')).status).toBe(200); // 2
    expect((await browser.get('/console/tasks')).status).toBe(200); // 3
    expect((await api('GET', '/api/v1/tasks', 'rationedToo')).status).toBe(429);
  });
});
