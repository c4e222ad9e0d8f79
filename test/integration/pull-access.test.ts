/**
 * Pull delivery from the attacker's side: another owner's token, a key without `tasks:lease`, a key
 * limited to other task types, and a schedule whose occurrences are pull tasks. Each refusal is
 * checked on the server too: the task is still leased by its owner's worker and unchanged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness } from '../helpers/harness.js';
import { lease, leaseOne, pullTask, settle } from '../helpers/pull.js';
import { uniqueId } from '../helpers/tasks.js';
import { waitFor } from '../helpers/wait.js';

let h: Harness;
beforeAll(async () => {
  h = await Harness.start({
    keys: {
      orders: { owner: 'orders', scopes: ['tasks:read', 'tasks:write', 'tasks:lease', 'schedules:write'] },
      billing: { owner: 'billing', scopes: ['tasks:read', 'tasks:write', 'tasks:lease'] },
      noLease: { owner: 'orders', scopes: ['tasks:read', 'tasks:write'] },
      typed: {
        owner: 'orders',
        scopes: ['tasks:read', 'tasks:write', 'tasks:lease'],
        allowedTaskTypes: ['mail.*'],
      },
      hosts: {
        owner: 'orders',
        scopes: ['tasks:read', 'tasks:write', 'tasks:lease'],
        allowedCallbackHosts: ['hooks.example.com'],
      },
    },
  });
});
afterAll(async () => {
  await h?.stop();
});

const key = (name: string) => h.keys[name]!.key;
const create = (name: string, body: Record<string, unknown>) =>
  h.call('POST', '/api/v1/tasks', { key: key(name), payload: body });
const getTask = (name: string, taskId: string) =>
  h.call('GET', `/api/v1/tasks/${taskId}`, { key: key(name) });

describe('another owner', () => {
  it("cannot lease an owner's queue: the same queue name is its own, empty queue", async () => {
    const taskType = h.taskType('pull.iso');
    const { body: task } = await create('orders', pullTask(taskType, { taskId: uniqueId('iso') }));
    const stolen = await lease(h, { queues: [taskType], waitSeconds: 2 }, key('billing'));
    expect(stolen).toMatchObject({ status: 200, leases: [] });
    const mine = await leaseOne(h, { queues: [taskType] }, key('orders'));
    expect(mine.task.taskId).toBe(task.taskId);
    await settle(h, 'ack', { leaseToken: mine.leaseToken }, key('orders'));
  });

  it("is refused an owner's lease token exactly as an absent lease, and the task stays leased and unchanged", async () => {
    const taskType = h.taskType('pull.token');
    const { body: task } = await create('orders', pullTask(taskType, { taskId: uniqueId('token') }));
    const mine = await leaseOne(h, { queues: [taskType], workerIdentity: 'orders-worker' }, key('orders'));
    // What billing gets for a lease of its own that no longer exists (settled): the "absent" answer.
    const ownType = h.taskType('pull.own');
    await create('billing', pullTask(ownType, { taskId: uniqueId('own') }));
    const own = await leaseOne(h, { queues: [ownType] }, key('billing'));
    await settle(h, 'ack', { leaseToken: own.leaseToken }, key('billing'));
    const absent = await settle(h, 'ack', { leaseToken: own.leaseToken }, key('billing'));
    expect(absent.status).toBe(404);
    for (const verb of ['ack', 'nack', 'extend', 'release'] as const) {
      const body =
        verb === 'nack' ? { leaseToken: mine.leaseToken, retryable: false } : { leaseToken: mine.leaseToken };
      const answer = await settle(h, verb, body, key('billing'));
      expect(answer, verb).toEqual(absent);
    }
    const seen = (await getTask('orders', task.taskId)).body;
    expect(seen).toMatchObject({
      status: 'RUNNING',
      attempts: 1,
      lease: { workerIdentity: 'orders-worker' },
    });
    expect((await getTask('billing', task.taskId)).status).toBe(404);
    expect((await settle(h, 'ack', { leaseToken: mine.leaseToken }, key('orders'))).status).toBe(200);
    const done = await waitFor(
      async () => {
        const { body } = await getTask('orders', task.taskId);
        return body.status === 'SUCCEEDED' && body;
      },
      { what: 'the task SUCCEEDED' },
    );
    expect(done.attempts).toBe(1);
  });
});

describe('a key', () => {
  it('without tasks:lease is refused every lease route, and the task waits for a worker that has it', async () => {
    const taskType = h.taskType('pull.scope');
    const { body: task } = await create('orders', pullTask(taskType, { taskId: uniqueId('scope') }));
    const refused = await lease(h, { queues: [taskType], waitSeconds: 1 }, key('noLease'));
    expect(refused.status).toBe(403);
    expect((await settle(h, 'ack', { leaseToken: 'x' }, key('noLease'))).status).toBe(403);
    const leased = await leaseOne(h, { queues: [taskType] }, key('orders'));
    expect(leased.task).toMatchObject({ taskId: task.taskId, attempt: 1 });
    await settle(h, 'ack', { leaseToken: leased.leaseToken }, key('orders'));
  });

  it('limited to task types leases and creates only on queues its patterns match', async () => {
    const other = h.taskType('pull.typed');
    const { body: task } = await create('orders', pullTask(other, { taskId: uniqueId('typed') }));
    const refused = await lease(h, { queues: ['mail.x', other], waitSeconds: 1 }, key('typed'));
    expect(refused.status).toBe(403);
    expect(refused.body.error.details[0].field).toBe('queues.1');
    const onOtherQueue = await create(
      'typed',
      pullTask('mail.send', { delivery: { mode: 'pull', queue: other } }),
    );
    expect(onOtherQueue.status).toBe(403);
    expect(onOtherQueue.body.error.details[0].field).toBe('delivery.queue');
    // The refusal took nothing: the owner's worker leases the task as attempt 1.
    const leased = await leaseOne(h, { queues: [other] }, key('orders'));
    expect(leased.task).toMatchObject({ taskId: task.taskId, attempt: 1 });
    await settle(h, 'ack', { leaseToken: leased.leaseToken }, key('orders'));
  });

  it('limited to callback hosts creates no pull task and leases nothing', async () => {
    const taskType = h.taskType('pull.hosts');
    const taskId = uniqueId('hosts');
    const created = await create('hosts', pullTask(taskType, { taskId }));
    expect(created.status).toBe(403);
    expect(created.body.error.details[0].field).toBe('delivery');
    expect((await getTask('orders', taskId)).status).toBe(404);
    expect((await lease(h, { queues: [taskType], waitSeconds: 1 }, key('hosts'))).status).toBe(403);
  });
});

describe('a schedule whose task is a pull task', () => {
  it('puts each occurrence on the pull queue, with the schedule and its nominal time', async () => {
    const taskType = h.taskType('pull.schedule');
    const scheduleId = uniqueId('pull-schedule');
    const created = await h.call('POST', '/api/v1/schedules', {
      key: key('orders'),
      payload: { scheduleId, every: '1m', task: { taskType, payload: { r: 1 }, delivery: { mode: 'pull' } } },
    });
    expect(created.status).toBe(201);
    const triggered = await h.app.inject({
      method: 'POST',
      url: `/api/v1/schedules/${scheduleId}/trigger`,
      headers: { authorization: `Bearer ${key('orders')}` },
    });
    expect(triggered.statusCode).toBeLessThan(300);
    const leased = await waitFor(
      async () => (await lease(h, { queues: [taskType], waitSeconds: 5 }, key('orders'))).leases[0],
      {
        timeoutMs: 30_000,
        what: 'an occurrence leased',
      },
    );
    expect(leased.task.schedule?.scheduleId).toBe(scheduleId);
    expect(leased.task.taskId.startsWith(scheduleId)).toBe(true);
    await settle(h, 'ack', { leaseToken: leased.leaseToken }, key('orders'));
    await h.app.inject({
      method: 'DELETE',
      url: `/api/v1/schedules/${scheduleId}`,
      headers: { authorization: `Bearer ${key('orders')}` },
    });
  });
});
