/**
 * Policies per task type, as declared in a (strict) policy file: each type's callbacks run on their
 * own queue with their own slots, so a slow type does not hold back a fast one; the rate limit holds
 * under a burst; defaults, allowed hosts and caps apply at create; and a saturated type calls back
 * the tasks that are due together in priority order.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PolicyFile } from '../../src/task-types/policies.js';
import { Harness } from '../helpers/harness.js';
import { CallbackReceiver, type ReceivedCallback } from '../helpers/receiver.js';
import { uniqueId, waitForStatus } from '../helpers/tasks.js';
import { waitFor } from '../helpers/wait.js';

const suffix = randomUUID().slice(0, 8);
const TYPES = {
  slow: `slow.${suffix}`,
  fast: `fast.${suffix}`,
  rated: `rated.${suffix}`,
  ranked: `ranked.${suffix}`,
  defaults: `defaults.${suffix}`,
};
const SLOW_TIMEOUT_MS = 1000;
/** Slow tasks due at once: one slot, each holds it for a timeout. */
const SLOW_TASKS = 8;
const RATE_PER_SECOND = 5;

let h: Harness;
/** Where the `defaults` type calls back when a task gives no callbackUrl. */
let defaultReceiver: CallbackReceiver;

beforeAll(async () => {
  defaultReceiver = await CallbackReceiver.start();
  const policies: PolicyFile = {
    strict: true,
    taskTypes: {
      [TYPES.slow]: { concurrency: 1, timeoutMs: { default: SLOW_TIMEOUT_MS }, maxRetries: { default: 0 } },
      [TYPES.fast]: { concurrency: 2 },
      [TYPES.rated]: { ratePerSecond: RATE_PER_SECOND, concurrency: 50, maxRetries: { default: 1 } },
      [TYPES.ranked]: { concurrency: 1 },
      [TYPES.defaults]: {
        callbackUrl: `${defaultReceiver.url}/hooks/default`,
        allowedCallbackHosts: ['127.0.0.1'],
        maxRetries: { default: 2, max: 3 },
        timeoutMs: { default: 2000, max: 5000 },
      },
    },
  };
  h = await Harness.start({ policies });
});
afterAll(async () => {
  await h?.stop();
  await defaultReceiver?.close();
});

const lagOf = (call: ReceivedCallback) => call.at - Date.parse(call.body.executeAt);

describe('a slow type does not hold back a fast type', () => {
  it('fast callbacks keep their normal lag while the slow type queues behind hanging callbacks', async () => {
    // Baseline: the fast type's lag on this machine right now, with nothing saturated. The bound below
    // is relative to it, not absolute: a loaded machine delays every callback, a shared queue delays
    // the fast ones behind the slow type's hold (several seconds), which is what this test is about.
    const baseline = await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        h.create({
          taskType: TYPES.fast,
          payload: { i },
          delaySeconds: 1 + i * 0.25,
          callbackUrl: h.receiver.url,
        }),
      ),
    );
    const baselineLags = await Promise.all(
      baseline.map(async ({ task }) => lagOf((await h.receiver.waitForCalls(task.taskId, 1))[0]!)),
    );
    const baselineMax = Math.max(...baselineLags);

    const start = Date.now() + 1000; // time to create every task before the first is due
    const slowIds = Array.from({ length: SLOW_TASKS }, () => uniqueId('slow'));
    // Each slow callback hangs far beyond the type's 1 s timeout: one slot, eight attempts in a row.
    for (const taskId of slowIds) h.receiver.script(taskId, [{ status: 200, delayMs: 15_000 }]);
    await Promise.all(
      slowIds.map((taskId) =>
        h.create({
          taskType: TYPES.slow,
          taskId,
          payload: {},
          executeAt: new Date(start).toISOString(),
          callbackUrl: h.receiver.url,
        }),
      ),
    );
    const fast = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        h.create({
          taskType: TYPES.fast,
          payload: { i },
          executeAt: new Date(start + 500 + i * 500).toISOString(),
          callbackUrl: h.receiver.url,
        }),
      ),
    );
    const fastIds = fast.map((created) => created.task.taskId);

    const fastCalls = await Promise.all(
      fastIds.map(async (taskId) => (await h.receiver.waitForCalls(taskId, 1))[0]!),
    );
    const slowCalls = await Promise.all(
      slowIds.map(async (taskId) => (await h.receiver.waitForCalls(taskId, 1))[0]!),
    );
    const fastLags = fastCalls.map(lagOf);
    const slowLags = slowCalls.map(lagOf).sort((a, b) => a - b);
    console.log(
      `slow type (1 slot, callbacks hang past ${SLOW_TIMEOUT_MS} ms): first-attempt lags ${slowLags.join(', ')} ms`,
    );
    console.log(
      `fast type, due while the slow type was saturated: lags ${fastLags.join(', ')} ms (alone just before: ${baselineLags.join(', ')} ms)`,
    );

    // The slow type really was saturated: its last task waited for all the others' timeouts.
    expect(slowLags.at(-1)!).toBeGreaterThanOrEqual((SLOW_TASKS - 1.5) * SLOW_TIMEOUT_MS);
    // A fast task due in the middle of that queue went out with its normal lag, not behind it. Behind
    // it, the first fast task would wait for about seven holds (7 s); here each stays within two holds
    // of the worst lag the fast type had alone a moment before, and under half the slow type's lag
    // (which grows with the machine's load as the fast type's would).
    expect(Math.max(...fastLags)).toBeLessThan(baselineMax + 2 * SLOW_TIMEOUT_MS);
    expect(Math.max(...fastLags)).toBeLessThan(slowLags.at(-1)! / 2);
    for (const taskId of fastIds) await waitForStatus(h, taskId, 'SUCCEEDED');
    for (const taskId of slowIds) {
      expect(await waitForStatus(h, taskId, 'FAILED')).toMatchObject({
        attempts: 1,
        lastError: { message: `callback timed out after ${SLOW_TIMEOUT_MS} ms` },
      });
    }
  });
});

describe('the rate limit of a type', () => {
  it(`holds at ${RATE_PER_SECOND} attempts per second under a burst of failing callbacks, retries included`, async () => {
    const taskIds = Array.from({ length: 12 }, () => uniqueId('burst'));
    for (const taskId of taskIds) h.receiver.script(taskId, [{ status: 500 }]);
    const executeAt = new Date(Date.now() + 500).toISOString();
    await Promise.all(
      taskIds.map((taskId) =>
        h.create({ taskType: TYPES.rated, taskId, payload: {}, executeAt, callbackUrl: h.receiver.url }),
      ),
    );
    for (const taskId of taskIds)
      expect(await waitForStatus(h, taskId, 'FAILED')).toMatchObject({ attempts: 2 });

    const calls = taskIds.flatMap((taskId) => h.receiver.callsFor(taskId)).sort((a, b) => a.at - b.at);
    expect(calls).toHaveLength(24);
    const first = calls[0]!.at;
    const histogram: number[] = [];
    for (const call of calls) {
      const second = Math.floor((call.at - first) / 1000);
      histogram[second] = (histogram[second] ?? 0) + 1;
    }
    // The busiest 1-second window starting at any attempt, not only at whole seconds.
    const busiest = Math.max(
      ...calls.map(
        (call) => calls.filter((other) => other.at >= call.at && other.at < call.at + 1000).length,
      ),
    );
    const spanMs = calls.at(-1)!.at - first;
    console.log(
      `attempt times (ms from the first): ${calls.map((call) => `${call.at - first}${call.body.attempt === 2 ? 'r' : ''}`).join(' ')}`,
    );
    console.log(
      `attempts per second from the first one: [${Array.from(histogram, (n) => n ?? 0).join(', ')}]; busiest 1 s window ${busiest}; ${calls.length} attempts over ${spanMs} ms`,
    );

    // After a quiet spell the worker's poll loop lets its waiting poll and two polls it had already
    // admitted through together; from then on polls are spaced at the rate.
    expect(busiest).toBeLessThanOrEqual(RATE_PER_SECOND + 3);
    // 24 attempts at 5 per second cannot take much less than 4 s, whatever the burst allowance.
    expect(spanMs).toBeGreaterThanOrEqual(3000);
  });
});

describe('task-type policies at create', () => {
  it('a declared default callbackUrl, maxRetries and timeoutMs apply when the caller omits them', async () => {
    const created = await h.create({ taskType: TYPES.defaults, payload: { x: 1 }, delaySeconds: 0 });
    expect(created.status).toBe(201);
    expect(created.task).toMatchObject({
      callbackUrl: `${defaultReceiver.url}/hooks/default`,
      maxRetries: 2,
      timeoutMs: 2000,
    });
    const [call] = await defaultReceiver.waitForCalls(created.task.taskId, 1);
    expect(call!.path).toBe('/hooks/default');
    expect(call!.body).toMatchObject({ taskType: TYPES.defaults, payload: { x: 1 } });
    await waitForStatus(h, created.task.taskId, 'SUCCEEDED');
  });

  const rejected: Array<{ name: string; body: Record<string, unknown>; field: string; reason: RegExp }> = [
    {
      name: 'an undeclared type (strict)',
      body: { taskType: `undeclared.${suffix}` },
      field: 'taskType',
      reason: /not a declared task type/,
    },
    {
      name: 'a callback host not allowed',
      body: { callbackUrl: 'http://localhost:9/hooks' },
      field: 'callbackUrl',
      reason: /host localhost is not allowed/,
    },
    {
      name: 'another host not allowed',
      body: { callbackUrl: 'https://example.com/hooks' },
      field: 'callbackUrl',
      reason: /not allowed/,
    },
    { name: 'maxRetries over the cap', body: { maxRetries: 4 }, field: 'maxRetries', reason: /cap of 3/ },
    { name: 'timeoutMs over the cap', body: { timeoutMs: 5001 }, field: 'timeoutMs', reason: /cap of 5000/ },
  ];

  it.each(rejected)('rejects $name with 400 and creates nothing', async ({ body, field, reason }) => {
    const taskId = uniqueId('rejected');
    const response = await h.create({
      taskType: TYPES.defaults,
      taskId,
      payload: {},
      delaySeconds: 1,
      ...body,
    });
    expect(response.status).toBe(400);
    const error = (
      response.raw as { error: { code: string; details: Array<{ field: string; reason: string }> } }
    ).error;
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.details).toEqual([{ field, reason: expect.stringMatching(reason) }]);
    expect((await h.get(taskId)).status).toBe(404);
  });

  it('accepts values at the cap, on an allowed host', async () => {
    const response = await h.create({
      taskType: TYPES.defaults,
      payload: {},
      delaySeconds: 0,
      maxRetries: 3,
      timeoutMs: 5000,
      callbackUrl: `${h.receiver.url}/capped`,
    });
    expect(response.status).toBe(201);
    expect(response.task).toMatchObject({ maxRetries: 3, timeoutMs: 5000 });
    const [call] = await h.receiver.waitForCalls(response.task.taskId, 1);
    expect(call!.path).toBe('/capped');
  });
});

describe('priority', () => {
  // Matching orders tasks by priority within a task queue partition: this holds when the callback
  // queues have one partition (with the server's default of four, each orders only its own share).
  it('a saturated type calls back the tasks due together in priority order', async () => {
    const t0 = Date.now() + 1000;
    // One slot, held for 3 s by a blocker, while ten tasks of mixed priority fall due together.
    const HOLD_MS = 3000;
    const blocker = uniqueId('blocker');
    h.receiver.script(blocker, [{ status: 200, delayMs: HOLD_MS }]);
    await h.create({
      taskType: TYPES.ranked,
      taskId: blocker,
      payload: {},
      executeAt: new Date(t0).toISOString(),
      callbackUrl: h.receiver.url,
    });
    const priorities = [3, 5, 1, 4, 2, 5, 1, 3, 2, 4];
    const dueAt = new Date(t0 + 500).toISOString();
    const ranked = priorities.map((priority, i) => ({
      taskId: `${uniqueId('ranked')}-p${priority}-${i}`,
      priority,
    }));
    for (const { taskId } of ranked) h.receiver.script(taskId, [{ status: 200, delayMs: 200 }]);
    await Promise.all(
      ranked.map(({ taskId, priority }) =>
        h.create({
          taskType: TYPES.ranked,
          taskId,
          priority,
          payload: { priority },
          executeAt: dueAt,
          callbackUrl: h.receiver.url,
        }),
      ),
    );

    const [blockerCall] = await h.receiver.waitForCalls(blocker, 1);
    const calls = await waitFor(
      () => {
        const received = ranked.flatMap(({ taskId }) => h.receiver.callsFor(taskId));
        return received.length === ranked.length && received.sort((a, b) => a.at - b.at);
      },
      { timeoutMs: 30_000, what: 'all ten ranked callbacks' },
    );
    const order = calls.map((call) => (call.body.payload as { priority: number }).priority);
    console.log(
      `priority order observed after the blocker: ${order.join(' ')} (offsets from the blocker's call: ${calls.map((call) => call.at - blockerCall!.at).join(', ')} ms)`,
    );
    // They were all waiting for the slot: each was due well before the blocker gave it back (its
    // workflow task, which runs the callback since workflow shape v2, waits on the server in
    // priority order), and the first went out only then.
    expect(Date.parse(dueAt)).toBeLessThan(blockerCall!.at + HOLD_MS - 1000);
    expect(calls[0]!.at - blockerCall!.at).toBeGreaterThanOrEqual(HOLD_MS - 100);
    expect(order).toEqual([...priorities].sort((a, b) => a - b));
  });
});
