/**
 * The API's overdue gauges against a real server with overdue tasks, through the same reader the API
 * process uses (the harness builds the app with it): tasks past due while no worker runs, then none.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness } from '../helpers/harness.js';
import { uniqueId } from '../helpers/tasks.js';
import { waitFor } from '../helpers/wait.js';

let h: Harness;
beforeAll(async () => {
  h = await Harness.start();
});
afterAll(async () => {
  await h?.stop();
});

async function gauge(name: string): Promise<number> {
  const response = await h.app.inject({ method: 'GET', url: '/metrics' });
  const value = new RegExp(`^${name} (\\S+)$`, 'm').exec(response.body)?.[1];
  if (value === undefined) throw new Error(`${name} not in /metrics`);
  return Number(value);
}

describe('overdue gauges', () => {
  it('count tasks past due that have not fired and age the oldest, then drop to 0 once they fire', async () => {
    await h.stopWorkers();
    const createdAt = Date.now();
    for (const [name, pastSeconds] of [
      ['overdue-old', 120],
      ['overdue-new', 20],
    ] as const) {
      const { status } = await h.create({
        taskType: h.taskType('overdue'),
        taskId: uniqueId(name),
        payload: {},
        executeAt: new Date(createdAt - pastSeconds * 1000).toISOString(),
        callbackUrl: h.receiver.url,
      });
      expect(status).toBe(201);
    }
    // Visibility is eventually consistent.
    await waitFor(async () => (await gauge('delayed_tasks_overdue')) === 2, {
      timeoutMs: 30_000,
      intervalMs: 500,
      what: 'delayed_tasks_overdue to be 2',
    });
    const oldest = await gauge('delayed_tasks_oldest_overdue_seconds');
    const ageNow = (Date.now() - createdAt) / 1000 + 120;
    // Bisection stops within 5 % (at least 1 s) below the true age.
    expect(oldest).toBeGreaterThanOrEqual(120 * 0.95 - 1);
    expect(oldest).toBeLessThanOrEqual(ageNow);

    await h.startWorkers();
    await waitFor(
      async () =>
        (await gauge('delayed_tasks_overdue')) === 0 &&
        (await gauge('delayed_tasks_oldest_overdue_seconds')) === 0,
      { timeoutMs: 30_000, intervalMs: 500, what: 'the overdue gauges to drop to 0' },
    );
    expect(h.receiver.received.length).toBeGreaterThanOrEqual(2);
  });
});
