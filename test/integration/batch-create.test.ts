/**
 * Batch create against the real dev server and a real receiver: each item is answered as a single
 * create of it would be (201, 200 repeat, its own error), exactly the accepted items' workflows exist
 * and fire, and a refused request (too many items, no key, no scope) starts nothing.
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/api/app.js';
import { ApiMetrics } from '../../src/api/metrics.js';
import { TaskService } from '../../src/tasks/service.js';
import { loadConfig } from '../../src/config/environment.js';
import { Policies } from '../../src/task-types/policies.js';
import { apiConnection } from '../../src/temporal/connection.js';
import { workflowIdOf } from '../../src/shared/owner.js';
import { TEST_ENV } from '../helpers/test-env.js';
import { Harness } from '../helpers/harness.js';
import { uniqueId } from '../helpers/tasks.js';
import { waitFor } from '../helpers/wait.js';

let h: Harness;
beforeAll(async () => {
  h = await Harness.start({
    captureLogs: true,
    env: { MAX_PAYLOAD_BYTES: '4096', RATE_LIMIT_PER_MINUTE: '100000' },
    keys: {
      orders: { owner: 'orders', scopes: ['tasks:read', 'tasks:write'] },
      billing: { owner: 'billing', scopes: ['tasks:read', 'tasks:write'] },
      reader: { owner: 'orders', scopes: ['tasks:read'] },
      limited: {
        owner: 'orders',
        scopes: ['tasks:write'],
        allowedTaskTypes: ['batch.*'],
        allowedCallbackHosts: ['127.0.0.1'],
      },
      metered: { owner: 'metered', scopes: ['tasks:write'], requestsPerMinute: 10 },
    },
  });
});
afterAll(async () => {
  await h?.stop();
});

const key = (name: string) => h.keys[name]!.key;

function item(fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    taskId: uniqueId('batch'),
    taskType: 'batch.test',
    payload: { n: 1 },
    delaySeconds: 3600,
    callbackUrl: `${h.receiver.url}/cb`,
    ...fields,
  };
}

interface ItemResult {
  index: number;
  status: number;
  task?: { taskId: string; owner: string; status: string };
  error?: { code: string; message: string; details?: { field: string; reason: string }[] };
}

async function batch(
  name: string | undefined,
  tasks: unknown,
): Promise<{ status: number; body: { results: ItemResult[]; error?: { code: string } } }> {
  return h.call('POST', '/api/v1/tasks/batch', {
    ...(name ? { key: key(name) } : {}),
    payload: { tasks },
  });
}

async function single(name: string, body: unknown): Promise<{ status: number; body: any }> {
  return h.call('POST', '/api/v1/tasks', { key: key(name), payload: body });
}

/** Whether a workflow exists for this owner's task id, asked of Temporal, not the API. */
async function exists(owner: string, taskId: string): Promise<boolean> {
  try {
    await h.client.workflow.getHandle(workflowIdOf(owner, taskId)).describe();
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

describe('batch create answers each item on its own', () => {
  it('mixes created, invalid, conflict, repeat and another owner’s id; only the valid ones start and fire', async () => {
    const repeat = item();
    const conflicting = item();
    const billingsId = uniqueId('billing-own');
    expect((await single('orders', repeat)).status).toBe(201);
    expect((await single('orders', conflicting)).status).toBe(201);
    expect((await single('billing', item({ taskId: billingsId }))).status).toBe(201);

    const fires = item({ delaySeconds: 1, payload: { fires: 'a' } });
    const firesToo = item({ delaySeconds: 1, payload: { fires: 'b' } });
    const invalid = item({ delaySeconds: undefined });
    const unknownField = item({ colour: 'red' });
    const tooLarge = item({ payload: { blob: 'x'.repeat(5000) } });
    // Another owner's task of the same id is another task: this creates orders' own.
    const sameIdAsBilling = item({ taskId: billingsId, delaySeconds: 1 });
    const items = [
      fires,
      invalid,
      { ...conflicting, payload: { n: 2 } },
      repeat,
      sameIdAsBilling,
      unknownField,
      tooLarge,
      firesToo,
    ];

    const { status, body } = await batch('orders', items);
    expect(status).toBe(200);
    expect(body.results.map((r) => [r.index, r.status])).toEqual([
      [0, 201],
      [1, 400],
      [2, 409],
      [3, 200],
      [4, 201],
      [5, 400],
      [6, 413],
      [7, 201],
    ]);
    // Each refusal is exactly what a single create of that item answers.
    for (const i of [1, 5, 6]) {
      const alone = await single('orders', items[i]);
      expect(alone.status).toBe(body.results[i]!.status);
      expect(body.results[i]!.error).toEqual(alone.body.error);
    }
    expect(body.results[2]!.error!.code).toBe('TASK_CONFLICT');
    expect(body.results[4]!.task).toMatchObject({ taskId: billingsId, owner: 'orders', status: 'SCHEDULED' });
    expect(body.results[3]!.task!.taskId).toBe(repeat.taskId);

    // Temporal holds exactly the accepted items' workflows; the refused ones created nothing.
    for (const accepted of [fires, sameIdAsBilling, firesToo]) {
      expect(await exists('orders', accepted.taskId as string)).toBe(true);
    }
    for (const refused of [invalid, unknownField, tooLarge]) {
      expect(await exists('orders', refused.taskId as string)).toBe(false);
    }
    // The conflicting item left the existing task as it was.
    const kept = await h.call('GET', `/api/v1/tasks/${conflicting.taskId as string}`, { key: key('orders') });
    expect(kept.body.payload).toEqual({ n: 1 });

    for (const accepted of [fires, firesToo, sameIdAsBilling]) {
      const [call] = await h.receiver.waitForCalls(accepted.taskId as string, 1);
      expect(call!.body.payload).toEqual(accepted.payload);
    }
    // billing's task of that id is untouched (due in an hour, never called yet, still SCHEDULED).
    const billings = await h.call('GET', `/api/v1/tasks/${billingsId}`, { key: key('billing') });
    expect(billings.body).toMatchObject({ owner: 'billing', status: 'SCHEDULED' });
  });

  it('creates two items with the same taskId in order: an identical second is a repeat, a different one a conflict', async () => {
    const first = item();
    const { body } = await batch('orders', [first, first, { ...first, payload: { n: 9 } }]);
    expect(body.results.map((r) => r.status)).toEqual([201, 200, 409]);
    expect(body.results[2]!.error!.code).toBe('TASK_CONFLICT');
  });

  it('generates a taskId for an item without one', async () => {
    const { body } = await batch('orders', [item({ taskId: undefined }), item({ taskId: undefined })]);
    expect(body.results.map((r) => r.status)).toEqual([201, 201]);
    const [a, b] = body.results.map((r) => r.task!.taskId);
    expect(a).not.toBe(b);
    expect(await exists('orders', a!)).toBe(true);
    expect(await exists('orders', b!)).toBe(true);
  });

  it("applies a key's task-type and callback-host limits per item, as a single create does", async () => {
    const allowed = item();
    const wrongType = item({ taskType: 'other.type' });
    const wrongHost = item({ callbackUrl: 'http://localhost:9/cb' });
    const { body } = await batch('limited', [allowed, wrongType, wrongHost]);
    expect(body.results.map((r) => r.status)).toEqual([201, 403, 403]);
    for (const i of [1, 2]) {
      const alone = await single('limited', [allowed, wrongType, wrongHost][i]);
      expect(body.results[i]!.error).toEqual(alone.body.error);
    }
    expect(await exists('orders', wrongType.taskId as string)).toBe(false);
    expect(await exists('orders', wrongHost.taskId as string)).toBe(false);
  });

  it('refuses a non-loopback private callback address per item (the SSRF guard)', async () => {
    const refused = item({ callbackUrl: 'http://10.1.2.3/cb' });
    const { body } = await batch('orders', [refused, item()]);
    expect(body.results.map((r) => r.status)).toEqual([400, 201]);
    expect(body.results[0]!.error).toEqual((await single('orders', refused)).body.error);
    expect(await exists('orders', refused.taskId as string)).toBe(false);
  });

  it('writes an audit line per item and counts created tasks in the metrics', async () => {
    const taskType = h.taskType('batch');
    const created = item({ taskType });
    const bad = item({ taskType, delaySeconds: -1 });
    await batch('orders', [created, bad]);
    const lines = await waitFor(
      () => {
        const found = h.logLines
          .filter((line) => line.msg === 'audit')
          .map((line) => line.audit as Record<string, unknown>)
          .filter((a) => a.taskId === created.taskId || a.taskId === bad.taskId);
        return found.length >= 2 && found;
      },
      { what: 'audit lines of both items' },
    );
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          action: 'createTasks',
          index: 0,
          taskId: created.taskId,
          owner: 'orders',
          status: 201,
          outcome: 'ok',
        }),
        expect.objectContaining({ index: 1, taskId: bad.taskId, status: 400, outcome: 'INVALID_ARGUMENT' }),
      ]),
    );
    const metrics = await h.app.inject({ method: 'GET', url: '/metrics' });
    expect(metrics.body).toContain(`delayed_tasks_created_total{task_type="${taskType}"} 1\n`);
  });
});

describe('a refused batch creates nothing', () => {
  it('answers 400 for 101 items and creates none of them', async () => {
    const items = Array.from({ length: 101 }, () => item());
    const { status, body } = await batch('orders', items);
    expect(status).toBe(400);
    expect(body.error!.code).toBe('INVALID_ARGUMENT');
    const started = await Promise.all(items.map((i) => exists('orders', i.taskId as string)));
    expect(started.filter(Boolean)).toHaveLength(0);
  });

  it.each([
    { name: 'an empty list', payload: { tasks: [] } },
    { name: 'no list', payload: {} },
    { name: 'a list that is not one', payload: { tasks: { a: 1 } } },
    { name: 'an unknown field next to the list', payload: { tasks: [{}], extra: 1 } },
  ])('answers 400 INVALID_ARGUMENT for $name', async ({ payload }) => {
    const response = await h.call('POST', '/api/v1/tasks/batch', { key: key('orders'), payload });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('INVALID_ARGUMENT');
  });

  it('starts nothing for a caller without a key (401) or without tasks:write (403)', async () => {
    const items = [item(), item()];
    const anonymous = await batch(undefined, items);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error!.code).toBe('UNAUTHENTICATED');
    const forged = await h.call('POST', '/api/v1/tasks/batch', {
      key: 'dts_abcdefghijkl_notarealsecretnotarealsecretxx',
      payload: { tasks: items },
    });
    expect(forged.status).toBe(401);
    const reader = await batch('reader', items);
    expect(reader.status).toBe(403);
    expect(reader.body.error!.code).toBe('PERMISSION_DENIED');
    for (const i of items) expect(await exists('orders', i.taskId as string)).toBe(false);
    // A well-formed later batch of the same items is created: the refusals left no trace to collide with.
    const { body } = await batch('orders', items);
    expect(body.results.map((r) => r.status)).toEqual([201, 201]);
  });

  it("counts each item against the key's rate limit; a batch over what remains is refused whole", async () => {
    const metered = (tasks: unknown[]) =>
      h.call('POST', '/api/v1/tasks/batch', { key: key('metered'), payload: { tasks } });
    const six = Array.from({ length: 6 }, () => item());
    const first = await metered(six);
    expect(first.status).toBe(200);
    // 6 of 10 used: 5 more do not fit.
    const five = Array.from({ length: 5 }, () => item());
    const refused = await metered(five);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('RESOURCE_EXHAUSTED');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    for (const i of five) expect(await exists('metered', i.taskId as string)).toBe(false);
    // The refused batch used one request: 3 more fit.
    const three = await metered(Array.from({ length: 3 }, () => item()));
    expect(three.body.results.map((r: ItemResult) => r.status)).toEqual([201, 201, 201]);
  });
});

describe('Temporal unreachable', () => {
  it('answers 200 with 503 UNAVAILABLE for each valid item, fast; the same items go through once Temporal is back', async () => {
    const config = loadConfig({
      TEMPORAL_ADDRESS: '127.0.0.1:1',
      TEMPORAL_RPC_TIMEOUT_MS: '1000',
      LOG_LEVEL: 'silent',
      ...TEST_ENV,
    });
    const connection = apiConnection(config.temporal);
    const down = await buildApp({
      config,
      tasks: new TaskService({ connection, config, policies: new Policies() }),
      metrics: new ApiMetrics({ readCounts: async () => ({ byStatus: {}, oldestOverdueSeconds: 0 }) }),
    });
    const items = Array.from({ length: 99 }, () => item({ delaySeconds: 1 }));
    const invalid = item({ delaySeconds: undefined });
    try {
      // The first call on a lazy connection also waits for its connection attempt: not what is measured.
      const single = await down.inject({ method: 'POST', url: '/api/v1/tasks', payload: item() });
      expect(single.statusCode).toBe(503);
      const started = Date.now();
      const response = await down.inject({
        method: 'POST',
        url: '/api/v1/tasks/batch',
        payload: { tasks: [...items.slice(0, 20), invalid, ...items.slice(20)] },
      });
      const took = Date.now() - started;
      console.log(`a batch of ${items.length + 1} with Temporal down took ${took} ms`);
      expect(response.statusCode).toBe(200);
      const results = (response.json() as { results: ItemResult[] }).results;
      expect(results).toHaveLength(100);
      expect(results[20]).toMatchObject({ status: 400, error: { code: 'INVALID_ARGUMENT' } });
      for (const result of results.filter((r) => r.index !== 20)) {
        expect(result).toEqual({
          index: result.index,
          status: 503,
          error: { code: 'UNAVAILABLE', message: 'Temporal is unreachable; retry later' },
        });
      }
      // Items after the first refusal do not each wait out the 1 s deadline (16 at a time: 7 s).
      expect(took).toBeLessThan(3500);
    } finally {
      await down.close();
      await connection.close().catch(() => undefined);
    }
    // Nothing was created: the retry creates every item (201, not a 200 repeat) and each fires once.
    const retried = await h.call('POST', '/api/v1/tasks/batch', {
      key: key('orders'),
      payload: { tasks: items },
    });
    expect(retried.body.results.map((r: ItemResult) => r.status)).toEqual(items.map(() => 201));
    for (const i of items) await h.receiver.waitForCalls(i.taskId as string, 1);
  });
});
