/**
 * A key limited to some task types or callback hosts reads and acts on only those tasks of its
 * owner (get, list, cancel, reschedule, replay), and a write-only key learns nothing of a task it did
 * not send: a cancel, reschedule or replay answers without payload or callback URL. Asked from the
 * limited key's side; each refusal is checked on the task too (unchanged). A task the key may not
 * reach answers exactly as an absent id (404, the same body): before, a 403 naming its type (or
 * host) told the key that it existed and what it was.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness } from '../helpers/harness.js';
import { uniqueId } from '../helpers/tasks.js';
import { waitFor } from '../helpers/wait.js';

let h: Harness;
beforeAll(async () => {
  h = await Harness.start({
    keys: {
      full: { owner: 'orders', scopes: ['tasks:read', 'tasks:write'] },
      ordersOnly: { owner: 'orders', scopes: ['tasks:read', 'tasks:write'], allowedTaskTypes: ['order.*'] },
      hostOnly: {
        owner: 'orders',
        scopes: ['tasks:read', 'tasks:write'],
        allowedCallbackHosts: ['partner.test'],
      },
      writer: { owner: 'orders', scopes: ['tasks:write'] },
    },
  });
}, 180_000);
afterAll(async () => {
  await h?.stop();
});

/** A task of owner `orders`, an hour ahead, created with the unlimited key. */
async function scheduled(taskType: string): Promise<string> {
  const taskId = uniqueId('limits');
  const created = await h.call('POST', '/api/v1/tasks', {
    key: h.keys.full!.key,
    payload: {
      taskId,
      taskType,
      payload: { secret: 'of-the-owner' },
      delaySeconds: 3600,
      callbackUrl: h.receiver.url,
    },
  });
  expect(created.status).toBe(201);
  return taskId;
}

const statusOf = async (taskId: string) =>
  (await h.call('GET', `/api/v1/tasks/${taskId}`, { key: h.keys.full!.key })).body as {
    status: string;
    executeAt: string;
  };

describe('a key limited to task types or callback hosts', () => {
  it.each(['ordersOnly', 'hostOnly'])(
    "%s cannot read, list, cancel or reschedule its owner's other tasks",
    async (name) => {
      const key = h.keys[name]!.key;
      const other = await scheduled('billing.invoice');
      const before = await statusOf(other);

      const read = await h.call('GET', `/api/v1/tasks/${other}`, { key });
      expect(read.status).toBe(404);
      expect(JSON.stringify(read.body)).not.toContain('of-the-owner');
      const listed = await h.call('GET', `/api/v1/tasks?idPrefix=${other}`, { key });
      expect(listed.status).toBe(200);
      expect(listed.body.tasks).toEqual([]);
      expect((await h.call('POST', `/api/v1/tasks/${other}/cancel`, { key, payload: {} })).status).toBe(404);
      const later = new Date(Date.now() + 7_200_000).toISOString();
      expect(
        (await h.call('POST', `/api/v1/tasks/${other}/reschedule`, { key, payload: { executeAt: later } }))
          .status,
      ).toBe(404);

      // Nothing happened to the task.
      expect(await statusOf(other)).toEqual(before);
      // The control: the unlimited key of the same owner lists it.
      const control = await h.call('GET', `/api/v1/tasks?idPrefix=${other}`, { key: h.keys.full!.key });
      expect(control.body.tasks.map((t: { taskId: string }) => t.taskId)).toEqual([other]);
    },
  );

  it('reads and acts on the tasks it is allowed', async () => {
    const own = await scheduled('order.close');
    const key = h.keys.ordersOnly!.key;
    expect((await h.call('GET', `/api/v1/tasks/${own}`, { key })).status).toBe(200);
    expect((await h.call('POST', `/api/v1/tasks/${own}/cancel`, { key, payload: {} })).status).toBe(200);
  });
});

/** Every route that addresses one task, with a body it accepts. */
const TASK_ROUTES = [
  { name: 'get', method: 'GET', suffix: '', payload: undefined },
  { name: 'cancel', method: 'POST', suffix: '/cancel', payload: {} },
  { name: 'reschedule', method: 'POST', suffix: '/reschedule', payload: { delaySeconds: 7200 } },
  { name: 'replay', method: 'POST', suffix: '/replay', payload: {} },
] as const;

/** A task of owner `orders` that has dead-lettered (its one attempt answered 400). */
async function failed(taskType: string): Promise<string> {
  const taskId = uniqueId('limits-failed');
  h.receiver.script(taskId, [{ status: 400 }]);
  const created = await h.call('POST', '/api/v1/tasks', {
    key: h.keys.full!.key,
    payload: { taskId, taskType, payload: {}, delaySeconds: 0, maxRetries: 0, callbackUrl: h.receiver.url },
  });
  expect(created.status).toBe(201);
  await waitFor(async () => (await statusOf(taskId)).status === 'FAILED', { what: `${taskId} FAILED` });
  return taskId;
}

describe('a task a limited key may not reach', () => {
  it.each(['ordersOnly', 'hostOnly'])(
    '%s: every task route answers it exactly as an absent id, and nothing happens to it',
    async (name) => {
      const key = h.keys[name]!.key;
      const hidden = {
        scheduled: await scheduled('billing.invoice'),
        failed: await failed('billing.invoice'),
      };
      const before = { scheduled: await statusOf(hidden.scheduled), failed: await statusOf(hidden.failed) };
      for (const route of TASK_ROUTES) {
        for (const taskId of [hidden.scheduled, hidden.failed]) {
          const absentId = `${taskId.slice(0, -8)}${'0'.repeat(8)}`;
          const ask = (id: string) =>
            h.call(route.method, `/api/v1/tasks/${id}${route.suffix}`, {
              key,
              ...(route.payload ? { payload: route.payload } : {}),
            });
          const [existing, absent] = [await ask(taskId), await ask(absentId)];
          expect(absent.status, `${route.name} of an absent id`).toBe(404);
          expect({ status: existing.status, body: existing.body }, `${route.name} of ${taskId}`).toEqual({
            status: absent.status,
            body: JSON.parse(JSON.stringify(absent.body).replaceAll(absentId, taskId)),
          });
          expect(JSON.stringify(existing.body)).not.toMatch(/billing|127\.0\.0\.1|PERMISSION/);
        }
      }
      // Nothing happened: not cancelled, not moved, not replayed (its one callback, no second run).
      expect(await statusOf(hidden.scheduled)).toEqual(before.scheduled);
      expect(await statusOf(hidden.failed)).toEqual(before.failed);
      expect(h.receiver.callsFor(hidden.failed)).toHaveLength(1);
      expect(h.receiver.callsFor(hidden.scheduled)).toHaveLength(0);
    },
  );
});

describe('a write-only key', () => {
  it('gets answers without the payload or callback URL of a task it did not send', async () => {
    const taskId = await scheduled('order.close');
    const later = new Date(Date.now() + 7_200_000).toISOString();
    const moved = await h.call('POST', `/api/v1/tasks/${taskId}/reschedule`, {
      key: h.keys.writer!.key,
      payload: { executeAt: later },
    });
    expect(moved.status).toBe(200);
    expect(moved.body.status).toBe('SCHEDULED');
    expect(moved.body.executeAt).toBe(later);
    expect(moved.body).not.toHaveProperty('payload');
    expect(moved.body).not.toHaveProperty('callbackUrl');
    const cancelled = await h.call('POST', `/api/v1/tasks/${taskId}/cancel`, {
      key: h.keys.writer!.key,
      payload: {},
    });
    expect(cancelled.status).toBe(200);
    expect(JSON.stringify(cancelled.body)).not.toContain('of-the-owner');
    // A reader's answer still carries them.
    const read = await h.call('GET', `/api/v1/tasks/${taskId}`, { key: h.keys.full!.key });
    expect(read.body.payload).toEqual({ secret: 'of-the-owner' });
  });
});
