/**
 * API keys against the real API and Temporal, from the caller's side and checked on the server:
 * every route refuses a missing, malformed, unknown, expired or disabled key with one identical 401;
 * each scope is allowed or 403; owners never see or touch each other's tasks (the workflows are
 * inspected through the Temporal client, not only the API's answer); the same client task id lives
 * under two owners; task-type and callback-host limits create nothing; the per-key rate limit and
 * the failed-authentication limit answer 429 with Retry-After; audit lines carry no secret.
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import type { SearchAttributePair } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { taskStartOptions } from '../../src/tasks/start-options.js';
import { composeKey, mintKey } from '../../src/auth/keys.js';
import { SEARCH_ATTRIBUTES, TASK_WORKFLOW_TYPE } from '../../src/shared/constants.js';
import type { TaskSpec, TaskState } from '../../src/shared/task.js';
import { statusQuery, type delayedTask } from '../../src/workflows/delayed-task.js';
import { Harness } from '../helpers/harness.js';
import { uniqueId } from '../helpers/tasks.js';
import { waitFor } from '../helpers/wait.js';

let h: Harness;
const PAST = '2026-01-01T00:00:00.000Z';

beforeAll(async () => {
  h = await Harness.start({
    captureLogs: true,
    env: { AUTH_FAILURES_PER_MINUTE: '10', RATE_LIMIT_PER_MINUTE: '100000' },
    keys: {
      reader: { owner: 'orders', scopes: ['tasks:read'] },
      writer: { owner: 'orders', scopes: ['tasks:write'] },
      orders: { owner: 'orders', scopes: ['tasks:read', 'tasks:write'] },
      billing: { owner: 'billing', scopes: ['tasks:read', 'tasks:write'] },
      legacy: { owner: 'default', scopes: ['tasks:read', 'tasks:write'] },
      admin: { owner: 'ops', scopes: ['admin'] },
      expired: { owner: 'orders', scopes: ['tasks:read', 'tasks:write'], expiresAt: PAST },
      disabled: { owner: 'orders', scopes: ['tasks:read', 'tasks:write'], disabled: true },
      limited: {
        owner: 'orders',
        scopes: ['tasks:read', 'tasks:write'],
        allowedTaskTypes: ['order.*', 'exact.type'],
        allowedCallbackHosts: ['127.0.0.1'],
      },
      slow: { owner: 'slow', scopes: ['tasks:read'], requestsPerMinute: 3 },
    },
  });
});
afterAll(async () => {
  await h?.stop();
});

const key = (name: string) => h.keys[name]!.key;

/** Starts a task for a key; fails the test unless 201. */
async function createAs(name: string, fields: Record<string, unknown> = {}): Promise<{ taskId: string }> {
  const response = await h.call('POST', '/api/v1/tasks', {
    key: key(name),
    payload: {
      taskType: 'auth.test',
      payload: {},
      delaySeconds: 3600,
      callbackUrl: h.receiver.url,
      ...fields,
    },
  });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body as { taskId: string };
}

/** The task as its workflow says it, through the Temporal client. */
async function workflowState(workflowId: string): Promise<TaskState> {
  return h.client.workflow.getHandle(workflowId).query(statusQuery);
}

async function workflowExists(workflowId: string): Promise<boolean> {
  try {
    await h.client.workflow.getHandle(workflowId).describe();
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

async function signalsOf(workflowId: string): Promise<number> {
  const history = await h.client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).filter((event) => event.workflowExecutionSignaledEventAttributes).length;
}

/** Every /api/v1 route with a request that is valid apart from its credentials. */
const ROUTES: { name: string; method: 'GET' | 'POST'; url: string; payload?: unknown }[] = [
  {
    name: 'create',
    method: 'POST',
    url: '/api/v1/tasks',
    payload: { taskType: 'auth.matrix', payload: {}, delaySeconds: 60, callbackUrl: 'http://127.0.0.1:9/' },
  },
  { name: 'list', method: 'GET', url: '/api/v1/tasks' },
  { name: 'get', method: 'GET', url: '/api/v1/tasks/matrix-task' },
  { name: 'cancel', method: 'POST', url: '/api/v1/tasks/matrix-task/cancel' },
  {
    name: 'reschedule',
    method: 'POST',
    url: '/api/v1/tasks/matrix-task/reschedule',
    payload: { delaySeconds: 5 },
  },
  { name: 'replay', method: 'POST', url: '/api/v1/tasks/matrix-task/replay' },
  { name: 'bulk replay', method: 'POST', url: '/api/v1/tasks/replay', payload: { taskType: 'auth.none' } },
  { name: 'bulk cancel', method: 'POST', url: '/api/v1/tasks/cancel', payload: { taskType: 'auth.none' } },
  { name: 'batch', method: 'GET', url: '/api/v1/batches/replay-none' },
];

describe('authentication', () => {
  const unknown = mintKey().key;
  const credentials = () => [
    { name: 'no Authorization header', headers: {} as Record<string, string> },
    { name: 'another scheme', headers: { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` } },
    { name: 'not a key', headers: { authorization: 'Bearer hello' } },
    {
      name: 'a key with a broken checksum',
      // The last character changed to another one (a fixed 'x' is the key itself 1 time in 62).
      headers: {
        authorization: `Bearer ${key('orders').slice(0, -1)}${key('orders').endsWith('x') ? 'y' : 'x'}`,
      },
    },
    { name: 'an unknown key', headers: { authorization: `Bearer ${unknown}` } },
    {
      name: 'a known key id with another secret',
      headers: { authorization: `Bearer ${composeKey(h.keys.orders!.keyId, 'A'.repeat(43))}` },
    },
    { name: 'an expired key', headers: { authorization: `Bearer ${key('expired')}` } },
    { name: 'a disabled key', headers: { authorization: `Bearer ${key('disabled')}` } },
  ];

  it('every /api/v1 route answers the same 401 with WWW-Authenticate to every bad credential, and creates nothing', async () => {
    const bodies = new Set<string>();
    let checked = 0;
    for (const [i, credential] of credentials().entries()) {
      // One client address per credential, under the failed-authentication limit (10 a minute).
      const remoteAddress = `10.0.1.${i + 1}`;
      for (const route of ROUTES) {
        const payload =
          route.name === 'create'
            ? { ...(route.payload as object), taskId: `unauth-${i}-${uniqueId('t')}` }
            : route.payload;
        const response = await h.call(route.method, route.url, {
          headers: credential.headers,
          payload,
          remoteAddress,
        });
        expect(response.status, `${route.name} with ${credential.name}`).toBe(401);
        expect(response.headers['www-authenticate']).toBe('Bearer realm="delayed-task-service"');
        bodies.add(JSON.stringify(response.body));
        if (route.name === 'create') {
          expect(await workflowExists(`orders/${(payload as { taskId: string }).taskId}`)).toBe(false);
          expect(await workflowExists((payload as { taskId: string }).taskId)).toBe(false);
        }
        checked++;
      }
    }
    expect(checked).toBe(credentials().length * ROUTES.length);
    expect([...bodies]).toEqual([
      JSON.stringify({
        error: {
          code: 'UNAUTHENTICATED',
          message:
            'a valid API key is required: send Authorization: Bearer <key> (keys look like dts_<keyId>_<secret>)',
        },
      }),
    ]);
  });

  it('/healthz, /readyz, /metrics, /openapi.json and /docs stay open', async () => {
    for (const url of ['/healthz', '/readyz', '/metrics', '/openapi.json', '/docs/']) {
      const response = await h.app.inject({ method: 'GET', url });
      expect(response.statusCode, url).toBe(200);
    }
  });

  it('locks out a client address after 10 failed authentications a minute with 429 and Retry-After, never a good key', async () => {
    const remoteAddress = '10.0.2.1';
    for (let i = 0; i < 10; i++) {
      const response = await h.call('GET', '/api/v1/tasks', { key: unknown, remoteAddress });
      expect(response.status).toBe(401);
    }
    const locked = await h.call('GET', '/api/v1/tasks', { key: unknown, remoteAddress });
    expect(locked.status).toBe(429);
    expect(locked.body.error.code).toBe('RESOURCE_EXHAUSTED');
    const retryAfter = Number(locked.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // Only failures are limited: a valid key from that address (a client behind the same NAT or
    // load balancer) is served. Keys are 256-bit secrets: guessing one is not what the limit stops.
    expect((await h.call('GET', '/api/v1/tasks', { key: key('orders'), remoteAddress })).status).toBe(200);
    expect((await h.call('GET', '/api/v1/tasks', { key: unknown, remoteAddress })).status).toBe(429);
    // Other addresses are not affected.
    expect(
      (await h.call('GET', '/api/v1/tasks', { key: key('orders'), remoteAddress: '10.0.2.2' })).status,
    ).toBe(200);
  });
});

describe('scopes', () => {
  /** What each route answers a caller allowed to call it (matrix-task does not exist). */
  const ANSWER_PAST_AUTH: Record<string, number> = {
    create: 201,
    list: 200,
    get: 404,
    cancel: 404,
    reschedule: 404,
    replay: 404,
    'bulk replay': 202,
    'bulk cancel': 202,
    batch: 404,
  };
  const allowed: Record<string, string[]> = {
    create: ['writer', 'admin'],
    list: ['reader', 'admin'],
    get: ['reader', 'admin'],
    cancel: ['writer', 'admin'],
    reschedule: ['writer', 'admin'],
    replay: ['writer', 'admin'],
    'bulk replay': ['admin'],
    'bulk cancel': ['admin'],
    batch: ['admin'],
  };

  it.each(ROUTES.map((route) => ({ ...route })))(
    '$name: allowed to $name keys with its scope, 403 PERMISSION_DENIED to the others',
    async (route) => {
      for (const name of ['reader', 'writer', 'orders', 'admin']) {
        const taskId = uniqueId(`scope-${name}`);
        const payload = route.name === 'create' ? { ...(route.payload as object), taskId } : route.payload;
        const response = await h.call(route.method, route.url, { key: key(name), payload });
        const mayCall =
          allowed[route.name]!.includes(name) ||
          (name === 'orders' && !allowed[route.name]!.every((scoped) => scoped === 'admin'));
        if (mayCall) {
          // The route's own answer past authorization: created, listed, or (no task of that id) 404.
          expect(response.status, `${route.name} as ${name}: ${JSON.stringify(response.body)}`).toBe(
            ANSWER_PAST_AUTH[route.name],
          );
        } else {
          expect(response.status, `${route.name} as ${name}`).toBe(403);
          expect(response.body.error.code).toBe('PERMISSION_DENIED');
          expect(response.body.error.details).toEqual([
            { field: 'authorization', reason: expect.stringMatching(/^lacks scope /) },
          ]);
        }
        if (route.name === 'create') {
          const owner = name === 'admin' ? 'ops' : 'orders';
          expect(await workflowExists(`${owner}/${taskId}`), `${name} created ${taskId}`).toBe(mayCall);
        }
      }
    },
  );
});

describe('owners', () => {
  it('two owners use the same client task id without colliding; the API answers with the client id', async () => {
    const taskId = uniqueId('shared');
    const ordersBody = {
      taskType: 'auth.same',
      taskId,
      payload: { who: 'orders' },
      delaySeconds: 3600,
      callbackUrl: h.receiver.url,
    };
    const a = await h.call('POST', '/api/v1/tasks', { key: key('orders'), payload: ordersBody });
    const b = await h.call('POST', '/api/v1/tasks', {
      key: key('billing'),
      payload: {
        taskType: 'auth.other',
        taskId,
        payload: { who: 'billing' },
        delaySeconds: 60,
        callbackUrl: h.receiver.url,
      },
    });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body).toMatchObject({ taskId, owner: 'orders', taskType: 'auth.same' });
    expect(b.body).toMatchObject({ taskId, owner: 'billing', taskType: 'auth.other' });
    expect(a.headers.location).toBe(`/api/v1/tasks/${taskId}`);
    expect(await workflowState(`orders/${taskId}`)).toMatchObject({
      taskId,
      owner: 'orders',
      payload: { who: 'orders' },
    });
    expect(await workflowState(`billing/${taskId}`)).toMatchObject({
      taskId,
      owner: 'billing',
      payload: { who: 'billing' },
    });
    expect(await workflowExists(taskId)).toBe(false);
    // Idempotent per owner: the same create again is 200 for its owner.
    const again = await h.call('POST', '/api/v1/tasks', { key: key('orders'), payload: ordersBody });
    expect(again.status).toBe(200);
    expect((await h.call('GET', `/api/v1/tasks/${taskId}`, { key: key('billing') })).body).toMatchObject({
      owner: 'billing',
      taskType: 'auth.other',
    });
  });

  it("another owner's task answers 404 exactly like an absent one, to get, cancel, reschedule and replay, and stays untouched", async () => {
    const { taskId } = await createAs('orders', { taskType: 'auth.private' });
    const workflowId = `orders/${taskId}`;
    const before = await workflowState(workflowId);
    const absent = uniqueId('absent');
    const notFound = (id: string) => ({
      error: { code: 'TASK_NOT_FOUND', message: `no task with id ${id}` },
    });
    for (const [method, suffix, payload] of [
      ['GET', '', undefined],
      ['POST', '/cancel', undefined],
      ['POST', '/reschedule', { delaySeconds: 1 }],
      ['POST', '/replay', {}],
    ] as const) {
      const foreign = await h.call(method, `/api/v1/tasks/${taskId}${suffix}`, {
        key: key('billing'),
        payload,
      });
      const missing = await h.call(method, `/api/v1/tasks/${absent}${suffix}`, {
        key: key('billing'),
        payload,
      });
      expect(foreign.status, `${method} ${suffix}`).toBe(404);
      expect(foreign.body).toEqual(notFound(taskId));
      expect(missing.body).toEqual(notFound(absent));
    }
    // On the server: still SCHEDULED at the same time, never signalled, one run.
    const after = await workflowState(workflowId);
    expect(after).toMatchObject({ status: 'SCHEDULED', executeAt: before.executeAt, attempts: 0 });
    expect(await signalsOf(workflowId)).toBe(0);
    const description = await h.client.workflow.getHandle(workflowId).describe();
    expect(description.status.name).toBe('RUNNING');
    // The owner itself still reaches it.
    expect((await h.call('GET', `/api/v1/tasks/${taskId}`, { key: key('orders') })).status).toBe(200);
  });

  it("replay of another owner's dead letter is 404 and starts no run", async () => {
    const taskId = uniqueId('dead');
    h.receiver.script(taskId, [{ status: 400 }]);
    await createAs('orders', { taskId, delaySeconds: 0, taskType: 'auth.dead' });
    const workflowId = `orders/${taskId}`;
    await waitFor(async () => (await workflowState(workflowId)).status === 'FAILED', { what: 'FAILED' });
    const { runId } = await h.client.workflow.getHandle(workflowId).describe();
    const response = await h.call('POST', `/api/v1/tasks/${taskId}/replay`, {
      key: key('billing'),
      payload: {},
    });
    expect(response.status).toBe(404);
    const described = await h.client.workflow.getHandle(workflowId).describe();
    expect(described.runId).toBe(runId);
    expect(described.status.name).toBe('FAILED');
    expect(h.receiver.callsFor(taskId)).toHaveLength(1);
  });

  it("lists only the key's owner's tasks; admin lists every owner or one; a non-admin key cannot name another owner", async () => {
    const taskType = h.taskType('auth.list');
    const mine = await createAs('orders', { taskType });
    const theirs = await createAs('billing', { taskType });
    const list = async (name: string, query = '') =>
      h.call('GET', `/api/v1/tasks?taskType=${taskType}${query}`, { key: key(name) });
    const ids = (body: { tasks: { taskId: string; owner: string }[] }) =>
      body.tasks.map((task) => `${task.owner}:${task.taskId}`).sort();
    await waitFor(async () => (await list('admin')).body.tasks.length === 2, { what: 'both tasks listed' });
    expect(ids((await list('orders')).body)).toEqual([`orders:${mine.taskId}`]);
    expect(ids((await list('billing')).body)).toEqual([`billing:${theirs.taskId}`]);
    expect(ids((await list('admin')).body)).toEqual(
      [`billing:${theirs.taskId}`, `orders:${mine.taskId}`].sort(),
    );
    expect(ids((await list('admin', '&owner=billing')).body)).toEqual([`billing:${theirs.taskId}`]);
    const named = await list('orders', '&owner=billing');
    expect(named.status).toBe(403);
    expect(named.body.error).toMatchObject({ code: 'PERMISSION_DENIED', details: [{ field: 'owner' }] });
    // Its own owner by name is fine.
    expect(ids((await list('orders', '&owner=orders')).body)).toEqual([`orders:${mine.taskId}`]);
  });

  it("an admin key reaches another owner's task with ?owner=; a non-admin key gets 403 and the task is untouched", async () => {
    const { taskId } = await createAs('billing', { taskType: 'auth.admin' });
    const workflowId = `billing/${taskId}`;
    const denied = await h.call('POST', `/api/v1/tasks/${taskId}/cancel?owner=billing`, {
      key: key('orders'),
    });
    expect(denied.status).toBe(403);
    expect((await workflowState(workflowId)).status).toBe('SCHEDULED');
    expect(await signalsOf(workflowId)).toBe(0);
    expect((await h.call('GET', `/api/v1/tasks/${taskId}`, { key: key('admin') })).status).toBe(404);
    const got = await h.call('GET', `/api/v1/tasks/${taskId}?owner=billing`, { key: key('admin') });
    expect(got.body).toMatchObject({ taskId, owner: 'billing' });
    const cancelled = await h.call('POST', `/api/v1/tasks/${taskId}/cancel?owner=billing`, {
      key: key('admin'),
    });
    expect(cancelled.status).toBe(200);
    expect((await workflowState(workflowId)).status).toBe('CANCELLED');
  });

  it("bulk cancel is admin-only and acts on every owner's tasks, or on one owner's with owner", async () => {
    const taskType = h.taskType('auth.bulk');
    const orders = await createAs('orders', { taskType });
    const billing = await createAs('billing', { taskType });
    const legacy = await createAs('legacy', { taskType });
    const all = [`orders/${orders.taskId}`, `billing/${billing.taskId}`, legacy.taskId];
    const denied = await h.call('POST', '/api/v1/tasks/cancel', {
      key: key('orders'),
      payload: { taskType },
    });
    expect(denied.status).toBe(403);
    for (const id of all) expect((await workflowState(id)).status).toBe('SCHEDULED');

    await waitFor(async () => (await visible(taskType)) === 3, { what: 'three tasks visible' });
    const one = await h.call('POST', '/api/v1/tasks/cancel', {
      key: key('admin'),
      payload: { taskType, owner: 'billing' },
    });
    expect(one.status).toBe(202);
    expect(one.body.matched).toBe(1);
    await waitFor(async () => (await workflowState(all[1]!)).status === 'CANCELLED', {
      what: 'billing cancelled',
    });
    expect((await workflowState(all[0]!)).status).toBe('SCHEDULED');
    expect((await workflowState(all[2]!)).status).toBe('SCHEDULED');

    await waitFor(async () => (await visible(taskType, 'SCHEDULED')) === 2, { what: 'two left scheduled' });
    const every = await h.call('POST', '/api/v1/tasks/cancel', { key: key('admin'), payload: { taskType } });
    expect(every.status).toBe(202);
    expect(every.body.matched).toBe(2);
    for (const id of all) {
      await waitFor(async () => (await workflowState(id)).status === 'CANCELLED', {
        what: `${id} cancelled`,
      });
    }
  });

  it('owner default sees tasks started before owners existed (no Owner attribute, no owner in the input)', async () => {
    const taskType = h.taskType('auth.legacy');
    const taskId = uniqueId('old');
    const spec = {
      taskId,
      taskType,
      payload: {},
      payloadVersion: 1,
      executeAt: new Date(Date.now() + 3_600_000).toISOString(),
      callbackUrl: h.receiver.url,
      maxRetries: 0,
      timeoutMs: 1000,
      traceId: null,
      priority: 3,
      createdAt: new Date().toISOString(),
      callbackTaskQueue: `${h.taskQueue}.callbacks._default`,
    } as Omit<TaskSpec, 'owner'> as TaskSpec;
    const options = taskStartOptions({ ...spec, owner: 'default' }, 'x', h.taskQueue, 'REJECT_DUPLICATE');
    await h.client.workflow.start<typeof delayedTask>(TASK_WORKFLOW_TYPE, {
      ...options,
      args: [spec],
      typedSearchAttributes: (options.typedSearchAttributes as SearchAttributePair[]).filter(
        (pair) => pair.key.name !== 'Owner',
      ),
    });
    const description = await h.client.workflow.getHandle(taskId).describe();
    expect(description.typedSearchAttributes.get(SEARCH_ATTRIBUTES.owner)).toBeUndefined();
    const listed = await waitFor(
      async () => {
        const body = (await h.call('GET', `/api/v1/tasks?taskType=${taskType}`, { key: key('legacy') })).body;
        return body.tasks.length === 1 && body.tasks;
      },
      { what: 'the old task in the default list' },
    );
    expect(listed[0]).toMatchObject({ taskId, owner: 'default' });
    expect((await h.call('GET', `/api/v1/tasks/${taskId}`, { key: key('legacy') })).body).toMatchObject({
      taskId,
      owner: 'default',
    });
    expect(
      (await h.call('GET', `/api/v1/tasks?taskType=${taskType}`, { key: key('orders') })).body.tasks,
    ).toEqual([]);
    expect((await h.call('GET', `/api/v1/tasks/${taskId}`, { key: key('orders') })).status).toBe(404);
  });
});

async function visible(taskType: string, status?: string): Promise<number> {
  const query = `TaskType = '${taskType}'${status ? ` AND TaskStatus = '${status}'` : ''} AND ExecutionStatus = 'Running'`;
  return (await h.client.workflow.count(query)).count;
}

describe('task-type and callback-host limits of a key', () => {
  it.each([
    { field: 'taskType', taskType: 'coupon.expire', host: '127.0.0.1' },
    { field: 'callbackUrl', taskType: 'order.close', host: 'localhost' },
  ])("refuses a $field outside the key's limits with 403 naming it, and creates nothing", async (c) => {
    const taskId = uniqueId(`denied-${c.field}`);
    const callbackUrl = `http://${c.host}:${new URL(h.receiver.url).port}/`;
    const response = await h.call('POST', '/api/v1/tasks', {
      key: key('limited'),
      payload: { taskType: c.taskType, taskId, payload: {}, delaySeconds: 60, callbackUrl },
    });
    expect(response.status).toBe(403);
    expect(response.body.error).toMatchObject({ code: 'PERMISSION_DENIED', details: [{ field: c.field }] });
    expect(await workflowExists(`orders/${taskId}`)).toBe(false);
  });

  it('accepts the allowed prefix, exact type and host', async () => {
    for (const taskType of ['order.close', 'order.refund.later', 'exact.type']) {
      const response = await h.call('POST', '/api/v1/tasks', {
        key: key('limited'),
        payload: { taskType, payload: {}, delaySeconds: 60, callbackUrl: h.receiver.url },
      });
      expect(response.status, taskType).toBe(201);
    }
    const near = await h.call('POST', '/api/v1/tasks', {
      key: key('limited'),
      payload: { taskType: 'exact.type2', payload: {}, delaySeconds: 60, callbackUrl: h.receiver.url },
    });
    expect(near.status).toBe(403);
  });

  it("cannot cancel or reschedule its owner's task of another type, which answers as absent; the task stays as it was", async () => {
    const { taskId } = await createAs('orders', { taskType: 'coupon.expire' });
    const workflowId = `orders/${taskId}`;
    const before = await workflowState(workflowId);
    for (const [suffix, payload] of [
      ['/cancel', undefined],
      ['/reschedule', { delaySeconds: 5 }],
    ] as const) {
      const response = await h.call('POST', `/api/v1/tasks/${taskId}${suffix}`, {
        key: key('limited'),
        payload,
      });
      expect(response.status, suffix).toBe(404);
      expect(response.body).toEqual({
        error: { code: 'TASK_NOT_FOUND', message: `no task with id ${taskId}` },
      });
    }
    expect(await workflowState(workflowId)).toMatchObject({
      status: 'SCHEDULED',
      executeAt: before.executeAt,
    });
    expect(await signalsOf(workflowId)).toBe(0);
  });
});

describe('per-key rate limit', () => {
  it("answers 429 RESOURCE_EXHAUSTED with Retry-After past the key's requestsPerMinute; other keys go on", async () => {
    for (let i = 0; i < 3; i++) {
      const response = await h.call('GET', '/api/v1/tasks', { key: key('slow') });
      expect(response.status).toBe(200);
      expect(response.headers['x-ratelimit-limit']).toBe('3');
      expect(response.headers['x-ratelimit-remaining']).toBe(String(2 - i));
    }
    const limited = await h.call('GET', '/api/v1/tasks', { key: key('slow') });
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({
      error: { code: 'RESOURCE_EXHAUSTED', message: "over this API key's limit of 3 requests per minute" },
    });
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect((await h.call('GET', '/api/v1/tasks', { key: key('reader') })).status).toBe(200);
  });
});

describe('audit log', () => {
  it('has one line per state-changing call and per refused call, with who, what and how, never a secret', async () => {
    const taskId = uniqueId('audited');
    await createAs('orders', { taskId, taskType: 'auth.audit' });
    await h.call('POST', `/api/v1/tasks/${taskId}/cancel`, { key: key('orders') });
    await h.call('POST', `/api/v1/tasks/${taskId}/cancel`, { key: key('reader') });
    await h.call('GET', `/api/v1/tasks/${taskId}`, { key: key('disabled'), remoteAddress: '10.0.3.1' });
    await h.call('GET', `/api/v1/tasks/${taskId}`, { key: key('orders') });
    const audit = () =>
      h.logLines
        .filter((line) => line.msg === 'audit')
        .map((line) => line.audit as Record<string, unknown>)
        .filter((line) => line.taskId === taskId);
    const lines = await waitFor(() => audit().length >= 4 && audit(), { what: 'audit lines' });
    const requestIds = new Set(lines.map((line) => line.requestId));
    expect(requestIds.size).toBe(lines.length);
    const callbackHost = new URL(h.receiver.url).host;
    expect(lines).toEqual([
      expect.objectContaining({
        action: 'createTask',
        keyId: h.keys.orders!.keyId,
        owner: 'orders',
        taskType: 'auth.audit',
        callbackHost,
        outcome: 'ok',
        status: 201,
        requestId: expect.any(String),
      }),
      expect.objectContaining({
        action: 'cancelTask',
        keyId: h.keys.orders!.keyId,
        owner: 'orders',
        outcome: 'ok',
      }),
      expect.objectContaining({
        action: 'cancelTask',
        keyId: h.keys.reader!.keyId,
        outcome: 'PERMISSION_DENIED',
        status: 403,
      }),
      expect.objectContaining({
        action: 'getTask',
        keyId: h.keys.disabled!.keyId,
        outcome: 'UNAUTHENTICATED',
        authFailure: 'disabled',
        status: 401,
      }),
    ]);
    // A successful read is not audited.
    expect(lines.filter((line) => line.action === 'getTask' && line.outcome === 'ok')).toEqual([]);
    // Nowhere in the whole log: not a full key, not the secret part of one.
    expect(h.logText.length).toBeGreaterThan(10_000);
    for (const { key: full, keyId } of Object.values(h.keys)) {
      const secret = full.slice(`dts_${keyId}_`.length);
      expect(h.logText).not.toContain(full);
      expect(h.logText).not.toContain(secret);
    }
  });
});
