/**
 * Redis Streams targets against a real redis-server started by scripts/local-server.sh: a due task's
 * envelope is XADDed once, on time, signed, and read by Python's redis client with XREADGROUP; a
 * broker that is down is retried with the task's backoff, dead-lettered, and delivered once on
 * replay; an undeclared broker, a disallowed stream or another owner's broker is refused with 400
 * naming the field and nothing started.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signWebhook } from '../../src/security/webhook-signature.js';
import { idempotencyKeyOf } from '../../src/shared/owner.js';
import {
  consumeWithPython,
  ensurePythonBrokers,
  localServer,
  stopLocalServer,
  writeBrokersFile,
} from '../helpers/brokers.js';
import { Harness } from '../helpers/harness.js';
import { uniqueId } from '../helpers/tasks.js';
import { TEST_OWNER_SECRETS } from '../helpers/test-env.js';
import { waitFor } from '../helpers/wait.js';

/** A server of this file's own: the outage test stops and restarts it. */
const DOWN = 'redis@broker-down';
const RETRY = { immediateRetries: 0, initialIntervalMs: 300, multiplier: 2, maxIntervalMs: 600 };

let h: Harness;
let redis: Redis;
let downRedis: Redis | undefined;
let downUrl: string;
const taskType = `broker.redis.${uniqueId('t')}`;

beforeAll(async () => {
  const url = localServer('redis');
  downUrl = localServer(DOWN);
  await ensurePythonBrokers();
  redis = new Redis(url);
  const brokersFile = writeBrokersFile({
    events: { kind: 'redis-streams', url, owners: { orders: ['orders.due', 'orders.t.*'] } },
    flaky: { kind: 'redis-streams', url: downUrl, owners: { orders: ['orders.*'] } },
    ledger: { kind: 'redis-streams', url, owners: { billing: ['billing.*'] } },
  });
  h = await Harness.start({
    env: { BROKERS_FILE: brokersFile },
    policies: { taskTypes: { [taskType]: { retry: RETRY } } },
    keys: {
      orders: { owner: 'orders', scopes: ['tasks:read', 'tasks:write'] },
      billing: { owner: 'billing', scopes: ['tasks:read', 'tasks:write'] },
    },
  });
}, 600_000);

afterAll(async () => {
  await h?.stop();
  redis?.disconnect();
  downRedis?.disconnect();
  stopLocalServer(DOWN);
});

const create = (key: string, body: Record<string, unknown>) =>
  h.call('POST', '/api/v1/tasks', { key, payload: { taskType, payload: {}, delaySeconds: 0, ...body } });
const get = (key: string, taskId: string) =>
  h.call('GET', `/api/v1/tasks/${encodeURIComponent(taskId)}`, { key });
const waitForStatus = (taskId: string, status: string, timeoutMs = 30_000) =>
  waitFor(
    async () => {
      const { body } = await get(h.keys.orders!.key, taskId);
      return body.status === status && body;
    },
    { timeoutMs, intervalMs: 100, what: `task ${taskId} to be ${status}` },
  );

describe('a Redis Streams target', () => {
  it('XADDs the envelope once when due, signed, and Python reads it with XREADGROUP', async () => {
    const stream = `orders.t.${uniqueId('s')}`;
    const taskId = uniqueId('redis.once');
    const created = await create(h.keys.orders!.key, {
      taskId,
      payload: { orderId: 42 },
      delaySeconds: 1,
      traceId: 'trace-1',
      delivery: { mode: 'broker', broker: 'events', stream, maxLen: 1000 },
    });
    expect(created.status).toBe(201);
    expect(created.body.delivery).toEqual({
      mode: 'broker',
      broker: 'events',
      kind: 'redis-streams',
      stream,
      maxLen: 1000,
    });
    const done = await waitForStatus(taskId, 'SUCCEEDED');

    const consumed = await consumeWithPython('redis-streams', [redisUrl(), stream, 'consumers'], 2, 2);
    expect(consumed).toHaveLength(1);
    const [message] = consumed;
    const body = JSON.parse(message!.body) as Record<string, unknown>;
    expect(body).toEqual({
      taskId,
      taskType,
      payload: { orderId: 42 },
      payloadVersion: 1,
      executeAt: done.executeAt,
      attempt: 1,
      traceId: 'trace-1',
    });
    const headers = message!.headers;
    expect(headers).toMatchObject({
      'content-type': 'application/json',
      'idempotency-key': idempotencyKeyOf('orders', taskId),
      'task-id': taskId,
      'task-type': taskType,
      'task-attempt': '1',
    });
    // Published after it was due, and signed as the callback would be with the owner's secret.
    const entryMs = Number(message!.properties.id!.toString().split('-')[0]);
    expect(entryMs).toBeGreaterThanOrEqual(Date.parse(done.executeAt));
    expect(headers['webhook-signature']).toBe(
      signWebhook(
        [TEST_OWNER_SECRETS.orders!],
        headers['webhook-id']!,
        Number(headers['webhook-timestamp']),
        message!.body,
      ),
    );
    expect(await redis.xlen(stream)).toBe(1);
  });

  it('retries a broker that is down with the backoff, dead-letters, and delivers once on replay', async () => {
    const stream = `orders.flaky.${uniqueId('s')}`;
    const taskId = uniqueId('redis.down');
    stopLocalServer(DOWN);
    const created = await create(h.keys.orders!.key, {
      taskId,
      maxRetries: 2,
      timeoutMs: 2000,
      delivery: { mode: 'broker', broker: 'flaky', stream },
    });
    expect(created.status).toBe(201);
    const failed = await waitForStatus(taskId, 'FAILED', 60_000);
    expect(failed.attempts).toBe(3);
    expect(failed.lastError.message).toMatch(/^broker flaky: /);
    const history = failed.attemptHistory as { startedAt: string; outcome: string }[];
    expect(history.map((a) => a.outcome)).toEqual(['RETRYABLE_ERROR', 'RETRYABLE_ERROR', 'RETRYABLE_ERROR']);
    // The task's backoff (300 ms, then 600 ms) lies between the attempts.
    const gaps = history.slice(1).map((a, i) => Date.parse(a.startedAt) - Date.parse(history[i]!.startedAt));
    expect(gaps[0]).toBeGreaterThanOrEqual(300);
    expect(gaps[1]).toBeGreaterThanOrEqual(600);

    expect(localServer(DOWN)).toBe(downUrl);
    const replayed = await h.call('POST', `/api/v1/tasks/${encodeURIComponent(taskId)}/replay`, {
      key: h.keys.orders!.key,
    });
    expect(replayed.status).toBe(200);
    await waitForStatus(taskId, 'SUCCEEDED', 60_000);
    downRedis = new Redis(downUrl);
    const entries = await downRedis.xrange(stream, '-', '+');
    expect(entries).toHaveLength(1);
    const fields = Object.fromEntries(chunk(entries[0]![1]));
    expect(fields['idempotency-key']).toBe(idempotencyKeyOf('orders', taskId));
    expect(JSON.parse(fields.body!).taskId).toBe(taskId);
  });
});

describe('what a task may name', () => {
  const refusals: {
    name: string;
    key: 'orders' | 'billing';
    delivery: Record<string, unknown>;
    field: string;
  }[] = [
    {
      name: 'an undeclared broker',
      key: 'orders',
      delivery: { broker: 'nowhere', stream: 'orders.due' },
      field: 'delivery.broker',
    },
    {
      name: "another owner's broker",
      key: 'orders',
      delivery: { broker: 'ledger', stream: 'billing.x' },
      field: 'delivery.broker',
    },
    {
      name: 'a stream the owner may not name',
      key: 'orders',
      delivery: { broker: 'events', stream: 'billing.x' },
      field: 'delivery.stream',
    },
    { name: 'no stream', key: 'orders', delivery: { broker: 'events' }, field: 'delivery.stream' },
    {
      name: "another kind's field",
      key: 'orders',
      delivery: { broker: 'events', stream: 'orders.due', topic: 't' },
      field: 'delivery.topic',
    },
    {
      name: "orders' broker for billing",
      key: 'billing',
      delivery: { broker: 'events', stream: 'orders.due' },
      field: 'delivery.broker',
    },
  ];
  it.each(refusals)(
    'refuses $name with 400 naming $field, and starts nothing',
    async ({ key, delivery, field }) => {
      const taskId = uniqueId('redis.refused');
      const { status, body } = await create(h.keys[key]!.key, {
        taskId,
        delivery: { mode: 'broker', ...delivery },
      });
      expect(status).toBe(400);
      expect(body.error.code).toBe('INVALID_ARGUMENT');
      expect(body.error.details).toContainEqual(expect.objectContaining({ field }));
      expect((await get(h.keys[key]!.key, taskId)).status).toBe(404);
    },
  );

  it("answers an undeclared broker and another owner's alike: no owner learns another's brokers", async () => {
    const undeclared = await create(h.keys.orders!.key, {
      delivery: { mode: 'broker', broker: 'nowhere', stream: 'x' },
    });
    const others = await create(h.keys.orders!.key, {
      delivery: { mode: 'broker', broker: 'ledger', stream: 'x' },
    });
    expect(others.body.error.message.replace('ledger', 'nowhere')).toBe(undeclared.body.error.message);
  });

  it('cannot name a host: the target has no URL field', async () => {
    const { status, body } = await create(h.keys.orders!.key, {
      delivery: { mode: 'broker', broker: 'events', stream: 'orders.due', url: 'redis://10.0.0.1:6379' },
    });
    expect(status).toBe(400);
    expect(body.error.code).toBe('INVALID_ARGUMENT');
  });
});

function redisUrl(): string {
  return localServer('redis');
}

function chunk(flat: string[]): [string, string][] {
  const pairs: [string, string][] = [];
  for (let i = 0; i < flat.length; i += 2) pairs.push([flat[i]!, flat[i + 1]!]);
  return pairs;
}
