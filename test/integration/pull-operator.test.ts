/**
 * A pull task as an operator sees it (issue 40), payloads encrypted at rest: the metrics move as it is
 * created, waits, is nacked and acked; the `temporal` CLI reads its state, its pending lease and its
 * history through the API's codec endpoint (and reads nothing without it); and the console in a real
 * browser (Debian's Chromium) shows its pull queue, who holds the lease and its attempts on its page,
 * and counts it in its type's forecast and outcomes.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintPayloadKey } from '../../src/security/payload-codec.js';
import { PULL_ACTIVITY } from '../../src/shared/delivery.js';
import { pullQueue } from '../../src/shared/task-queues.js';
import { Harness } from '../helpers/harness.js';
import { leaseOne, pullTask, settle } from '../helpers/pull.js';
import { uniqueId, waitForStatus, waitUntilRetrying } from '../helpers/tasks.js';
import { temporal } from '../helpers/temporal-cli.js';
import { waitFor } from '../helpers/wait.js';

const CHROMIUM = '/usr/bin/chromium';
/** What must not be readable without the codec: in a payload and in a nack reason. */
const MARKER = `marker${randomUUID().replace(/-/g, '')}`;
const REASON = `reason${randomUUID().replace(/-/g, '')}`;

let h: Harness;
let base: string;
let browser: Browser | undefined;
beforeAll(async () => {
  h = await Harness.start({
    env: {
      PAYLOAD_ENCRYPTION_KEYS: `k1:${mintPayloadKey()}`,
      PAYLOAD_ENCRYPTION_CURRENT_KEY_ID: 'k1',
      CONSOLE_ENABLED: 'true',
      // A lease that runs out within the lease metrics test.
      LEASE_MIN_SECONDS: '2',
    },
  });
  await h.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await browser?.close();
  await h?.stop();
});

/** The value of one sample of a Prometheus text exposition; 0 when the series does not exist yet. */
function sample(text: string, name: string, labels: Record<string, string>): number {
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(\{[^}]*\})?\s+(\S+)/.exec(line);
    if (!match || match[1] !== name) continue;
    const labelText = match[2] ?? '';
    if (Object.entries(labels).every(([k, v]) => labelText.includes(`${k}="${v}"`))) return Number(match[3]);
  }
  return 0;
}
/** Whether CLI output shows `secret`, in clear or in a base64 payload (`-o json` prints payloads so). */
function reveals(output: string, secret: string): boolean {
  if (output.includes(secret)) return true;
  return (output.match(/"[A-Za-z0-9+/]{16,}={0,2}"/g) ?? []).some((quoted) =>
    Buffer.from(quoted.slice(1, -1), 'base64').toString('utf8').includes(secret),
  );
}
const apiMetrics = async () => (await h.app.inject({ method: 'GET', url: '/metrics' })).body;
const workerMetrics = () => h.workerMetrics.registry.metrics();

describe('metrics', () => {
  it('count the pull task created, show it as the backlog while no consumer leases it, and count how it ends', async () => {
    const taskType = h.taskType('pull.metrics');
    const ok = uniqueId('pull-metrics-ok');
    const bad = uniqueId('pull-metrics-bad');
    const acks = () => sample(text, 'http_request_duration_seconds_count', { route: '/api/v1/leases/ack' });
    let text = await apiMetrics();
    const acksBefore = acks();
    await h.create(pullTask(taskType, { taskId: ok }));
    await h.create(pullTask(taskType, { taskId: bad, maxRetries: 5 }));
    text = await apiMetrics();
    expect(sample(text, 'delayed_tasks_created_total', { task_type: taskType })).toBe(2);
    // Due, and no consumer: both are the delivery backlog, as callbacks that have not fired are.
    await waitFor(async () => sample(await apiMetrics(), 'delayed_tasks_overdue', {}) === 2, {
      timeoutMs: 30_000,
      intervalMs: 500,
      what: 'delayed_tasks_overdue to be 2',
    });

    const finished = async (status: string) =>
      sample(await workerMetrics(), 'delayed_tasks_finished_total', { task_type: taskType, status });
    const first = await leaseOne(h, { queues: [taskType] });
    await settle(h, 'nack', { leaseToken: first.leaseToken, reason: 'try again' });
    await waitUntilRetrying(h, first.task.taskId);
    // A retried attempt finishes nothing.
    expect([await finished('SUCCEEDED'), await finished('FAILED')]).toEqual([0, 0]);
    for (let i = 0; i < 2; i++) {
      const leased = await leaseOne(h, { queues: [taskType] });
      if (leased.task.taskId === ok) await settle(h, 'ack', { leaseToken: leased.leaseToken });
      else await settle(h, 'nack', { leaseToken: leased.leaseToken, retryable: false, reason: 'no' });
    }
    await waitForStatus(h, ok, 'SUCCEEDED');
    await waitForStatus(h, bad, 'FAILED');
    await waitFor(async () => (await finished('SUCCEEDED')) === 1 && (await finished('FAILED')) === 1, {
      what: 'one SUCCEEDED and one FAILED in delayed_tasks_finished_total',
    });
    await waitFor(async () => sample(await apiMetrics(), 'delayed_tasks_overdue', {}) === 0, {
      timeoutMs: 30_000,
      intervalMs: 500,
      what: 'delayed_tasks_overdue back to 0',
    });
    text = await apiMetrics();
    expect(sample(text, 'delayed_tasks_current', { status: 'FAILED' })).toBe(1);
    expect(acks() - acksBefore).toBeGreaterThanOrEqual(1);
  });
});

describe('lease metrics', () => {
  const OUTCOMES = [
    'leased',
    'acked',
    'nacked_retryable',
    'nacked_permanent',
    'released',
    'extended',
    'expired',
    'cancelled',
    'refused',
  ] as const;
  const outcomes = (text: string) =>
    Object.fromEntries(
      OUTCOMES.map((outcome) => [outcome, sample(text, 'delayed_tasks_lease_outcomes_total', { outcome })]),
    );
  const lag = (text: string, taskType: string) => ({
    count: sample(text, 'delayed_tasks_lease_lag_seconds_count', { task_type: taskType }),
    sum: sample(text, 'delayed_tasks_lease_lag_seconds_sum', { task_type: taskType }),
  });

  it('count every lease outcome the routes answer, and measure the first attempt leased from its due time', async () => {
    const [a, b, c, d] = [
      h.taskType('pull.lag.a'),
      h.taskType('pull.lag.b'),
      h.taskType('pull.lag.c'),
      h.taskType('pull.lag.d'),
    ];
    const before = await apiMetrics();
    for (const outcome of OUTCOMES) {
      // Every outcome has its series from the start: the first of each is an increase.
      expect(before).toMatch(
        new RegExp(`^delayed_tasks_lease_outcomes_total\\{outcome="${outcome}"\\} `, 'm'),
      );
    }
    /** Lower and upper bounds of the lags of the first attempts leased, in seconds. */
    const bounds = { low: 0, high: 0 };
    const timedLease = async (queue: string) => {
      const start = Date.now();
      const lease = await leaseOne(h, { queues: [queue] });
      const due = Date.parse(lease.task.executeAt);
      if (lease.task.attempt === 1) {
        bounds.low += Math.max(0, start - due) / 1000;
        bounds.high += (Date.now() - due) / 1000;
      }
      return lease;
    };

    // a: leased, extended, released (no attempt spent: its second lease is attempt 1 again), acked,
    // and its settled token refused.
    expect((await h.create(pullTask(a))).status).toBe(201);
    const a1 = await timedLease(a);
    expect((await settle(h, 'extend', { leaseToken: a1.leaseToken })).status).toBe(200);
    expect((await settle(h, 'release', { leaseToken: a1.leaseToken })).status).toBe(200);
    const a2 = await timedLease(a);
    expect(a2.task.attempt).toBe(1);
    expect((await settle(h, 'ack', { leaseToken: a2.leaseToken })).status).toBe(200);
    expect((await settle(h, 'ack', { leaseToken: a2.leaseToken })).body.error.code).toBe('LEASE_NOT_FOUND');

    // b: nacked, retried (attempt 2: no lag, its due time is the backoff's), nacked as permanent.
    const { task: taskB } = await h.create(pullTask(b, { maxRetries: 5 }));
    const b1 = await timedLease(b);
    await settle(h, 'nack', { leaseToken: b1.leaseToken, reason: 'again' });
    await waitUntilRetrying(h, taskB.taskId);
    const b2 = await timedLease(b);
    expect(b2.task.attempt).toBe(2);
    expect((await settle(h, 'nack', { leaseToken: b2.leaseToken, retryable: false })).status).toBe(200);

    // c: cancelled while leased, then acked.
    const { task: taskC } = await h.create(pullTask(c));
    const c1 = await timedLease(c);
    expect((await h.post(`/api/v1/tasks/${taskC.taskId}/cancel`)).status).toBe(200);
    expect((await settle(h, 'ack', { leaseToken: c1.leaseToken })).body.error.code).toBe('TASK_CANCELLED');

    // d: its lease runs out; the late ack is refused, attempt 2's is taken.
    expect((await h.create(pullTask(d, { delivery: { mode: 'pull', leaseSeconds: 2 } }))).status).toBe(201);
    const d1 = await timedLease(d);
    const d2 = await timedLease(d);
    expect(d2.task.attempt).toBe(2);
    expect((await settle(h, 'ack', { leaseToken: d1.leaseToken })).body.error.code).toBe('LEASE_EXPIRED');
    expect((await settle(h, 'ack', { leaseToken: d2.leaseToken })).status).toBe(200);

    const after = await apiMetrics();
    const was = outcomes(before);
    const delta = Object.fromEntries(Object.entries(outcomes(after)).map(([k, v]) => [k, v - (was[k] ?? 0)]));
    expect(delta).toEqual({
      leased: 7,
      acked: 2,
      nacked_retryable: 1,
      nacked_permanent: 1,
      released: 1,
      extended: 1,
      expired: 1,
      cancelled: 1,
      refused: 1,
    });
    // First attempts only: a twice (released), b, c and d once each.
    expect([a, b, c, d].map((t) => lag(after, t).count)).toEqual([2, 1, 1, 1]);
    const lagSum = [a, b, c, d].reduce((sum, t) => sum + lag(after, t).sum, 0);
    // executeAt has millisecond precision: allow as much per lease.
    expect(lagSum).toBeGreaterThanOrEqual(bounds.low - 0.005);
    expect(lagSum).toBeLessThanOrEqual(bounds.high + 0.005);
  });
});

describe('the temporal CLI through the codec endpoint', () => {
  const codec = () => ['--codec-endpoint', `${base}/codec`];

  it('queries, describes and shows a leased and nacked pull task decoded, and reveals nothing without the codec', async () => {
    const taskType = h.taskType('pull.cli');
    const taskId = uniqueId('pull-cli');
    await h.create(pullTask(taskType, { taskId, payload: { secret: MARKER } }));
    const first = await leaseOne(h, { queues: [taskType], workerIdentity: 'cli-worker' });

    const query = await temporal([
      'workflow',
      'query',
      '-w',
      taskId,
      '--name',
      'status',
      '-o',
      'json',
      ...codec(),
    ]);
    expect(query.code, query.stderr).toBe(0);
    expect(query.stdout).toContain(MARKER);
    const state = JSON.parse(query.stdout) as { queryResult: Record<string, unknown>[] };
    expect(state.queryResult[0]).toMatchObject({
      taskId,
      status: 'RUNNING',
      attempts: 1,
      delivery: { mode: 'pull', queue: taskType },
      payload: { secret: MARKER },
    });

    // The lease is Temporal's pending attempt: on the owner's pull queue, held by the worker.
    const described = await temporal(['workflow', 'describe', '-w', taskId, '-o', 'json', ...codec()]);
    expect(described.code, described.stderr).toBe(0);
    const pending = (JSON.parse(described.stdout) as { pendingActivities?: Record<string, unknown>[] })
      .pendingActivities;
    expect(pending).toHaveLength(1);
    expect(pending?.[0]).toMatchObject({
      activityType: { name: PULL_ACTIVITY },
      state: 'PENDING_ACTIVITY_STATE_STARTED',
      lastWorkerIdentity: 'cli-worker',
    });

    await settle(h, 'nack', { leaseToken: first.leaseToken, reason: REASON });
    await waitUntilRetrying(h, taskId);
    const second = await leaseOne(h, { queues: [taskType] });
    await settle(h, 'ack', { leaseToken: second.leaseToken });
    await waitForStatus(h, taskId, 'SUCCEEDED');

    const opaque = await temporal(['workflow', 'show', '-w', taskId, '-o', 'json']);
    expect(opaque.code, opaque.stderr).toBe(0);
    expect(reveals(opaque.stdout, MARKER)).toBe(false);
    expect(reveals(opaque.stdout, REASON)).toBe(false);

    const clear = await temporal(['workflow', 'show', '-w', taskId, '-o', 'json', ...codec()]);
    expect(clear.code, clear.stderr).toBe(0);
    expect(reveals(clear.stdout, MARKER)).toBe(true);
    expect(reveals(clear.stdout, REASON)).toBe(true);
    const events = (JSON.parse(clear.stdout) as { events: Record<string, any>[] }).events;
    const scheduled = events.filter((e) => e.eventType === 'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED');
    expect(scheduled.map((e) => e.activityTaskScheduledEventAttributes.taskQueue.name)).toEqual([
      pullQueue(h.taskQueue, 'default', taskType),
      pullQueue(h.taskQueue, 'default', taskType),
    ]);
    expect(
      events
        .filter((e) => e.eventType === 'EVENT_TYPE_ACTIVITY_TASK_STARTED')
        .map((e) => e.activityTaskStartedEventAttributes.identity),
    ).toEqual(['cli-worker', 'anonymous']);
    expect(events.map((e) => e.eventType)).toContain('EVENT_TYPE_ACTIVITY_TASK_FAILED');
    expect(events.map((e) => e.eventType)).toContain('EVENT_TYPE_ACTIVITY_TASK_COMPLETED');
  });
});

describe('the console in a browser', () => {
  /** `dd` of the `dt` named `name` on the task page. */
  const field = (page: Page, name: string) => page.locator(`dt:text-is("${name}") + dd`).textContent();

  /** A new page of the one browser, launched on first use. */
  async function newPage(): Promise<Page> {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
    browser ??= await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    return browser.newPage({ viewport: { width: 1100, height: 720 } });
  }
  /** The sum of one series' column of a chart's table. */
  const total = async (page: Page, chart: string, column: number) =>
    (await page.locator(`table[data-chart-table="${chart}"] tbody td:nth-child(${column})`).allTextContents())
      .map(Number)
      .reduce((a, b) => a + b, 0);

  it("shows a pull task's queue, its lease holder and its attempts, then how it ended", async () => {
    const page = await newPage();
    const taskType = h.taskType('pull.console');
    const queue = `${taskType}.jobs`;
    const taskId = uniqueId('pull-console');
    await h.create(pullTask(taskType, { taskId, delivery: { mode: 'pull', queue, leaseSeconds: 45 } }));
    const first = await leaseOne(h, { queues: [queue], workerIdentity: 'console-worker-1' });
    await settle(h, 'nack', { leaseToken: first.leaseToken, reason: 'printer jammed' });
    await waitUntilRetrying(h, taskId);
    const second = await leaseOne(h, { queues: [queue], workerIdentity: 'console-worker-2' });

    await page.goto(`${base}/console/tasks/${taskId}`);
    await expect(page.locator('#task-status').textContent()).resolves.toBe('RUNNING');
    await expect(field(page, 'Delivery')).resolves.toBe(`pull queue ${queue}, lease 45 s`);
    await expect(field(page, 'Lease')).resolves.toMatch(/^held by console-worker-2 until \d{4}-\d\d-\d\dT/);
    await expect(field(page, 'Attempts')).resolves.toBe('2');
    await expect(field(page, 'Last error')).resolves.toBe('printer jammed');
    // The lease bounds an attempt, not the callback timeout: no Timeout row.
    expect(await page.locator('dt:text-is("Timeout")').count()).toBe(0);
    expect(await page.locator('dt:text-is("Callback URL")').count()).toBe(0);
    const attempt1 = page.locator('#attempts tr[data-attempt="1"]');
    await expect(attempt1.locator('.outcome').textContent()).resolves.toBe('RETRYABLE_ERROR');
    await expect(attempt1.locator('.attempt-error').textContent()).resolves.toBe('printer jammed');

    await settle(h, 'ack', { leaseToken: second.leaseToken });
    await waitForStatus(h, taskId, 'SUCCEEDED');
    await page.goto(`${base}/console/tasks/${taskId}`);
    await expect(page.locator('#task-status').textContent()).resolves.toBe('SUCCEEDED');
    await expect(field(page, 'Lease')).resolves.toBe('none held');
    await expect(page.locator('#attempts tr[data-attempt] .outcome').allTextContents()).resolves.toEqual([
      'RETRYABLE_ERROR',
      'SUCCEEDED',
    ]);
    await page.close();
  });

  it("forecasts the type's pull tasks coming due and counts the one that ended", async () => {
    const taskType = h.taskType('pull.forecast');
    const ended = uniqueId('pull-forecast-ended');
    await h.create(pullTask(taskType, { taskId: ended }));
    await settle(h, 'ack', { leaseToken: (await leaseOne(h, { queues: [taskType] })).leaseToken });
    await waitForStatus(h, ended, 'SUCCEEDED');
    const ahead = [uniqueId('pull-forecast'), uniqueId('pull-forecast')];
    for (const taskId of ahead) await h.create(pullTask(taskType, { taskId, delaySeconds: 20 * 60 }));
    const page = await newPage();
    // Visibility is eventually consistent: reload until the charts have them (SUCCEEDED is the
    // outcomes' first series).
    await waitFor(
      async () => {
        await page.goto(`${base}/console/types/${encodeURIComponent(taskType)}`);
        return (
          (await total(page, 'due-by-minute', 2)) === 2 && (await total(page, 'outcomes-by-hour', 2)) === 1
        );
      },
      { timeoutMs: 30_000, intervalMs: 500, what: 'two pull tasks forecast and one SUCCEEDED' },
    );
    expect(await total(page, 'due-by-hour', 2)).toBe(2);
    for (const taskId of ahead) expect((await h.post(`/api/v1/tasks/${taskId}/cancel`)).status).toBe(200);
    await page.close();
  });
});
