/**
 * The console's charts in a real browser (headless Chromium) against a stack with known tasks: the
 * due-time forecast, the outcomes per hour and the lag panel from a real Prometheus scraping the
 * worker's metrics. Counts are read from the charts' tables and bars and compared with the tasks
 * this test made; each owner sees only its own tasks, an admin every owner's.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiMetrics } from '../../src/api/metrics.js';
import { KeyStore } from '../../src/auth/key-store.js';
import { ownerAccess } from '../../src/auth/principal.js';
import { Harness, mintKeys, writeKeysFile, type Minted } from '../helpers/harness.js';
import { CallbackReceiver } from '../helpers/receiver.js';
import { buildServer } from '../helpers/server.js';
import { uniqueId } from '../helpers/tasks.js';
import { waitFor } from '../helpers/wait.js';

const CHROMIUM = '/usr/bin/chromium';
const SCREENSHOTS = process.env.UPDATE_SCREENSHOTS === '1' ? 'docs/console' : '.data/console-screenshots';
const MINUTE = 60_000;
const HOUR = 3_600_000;

// Prometheus is skipped only on a developer's machine without it: CI installs Debian's package.
const hasPrometheus = spawnSync('prometheus', ['--version']).status === 0;
const prometheusRequired = process.env.CI === 'true';

let h: Harness;
let receiver: CallbackReceiver;
let browser: Browser;
let app: FastifyInstance;
let base: string;
let keys: Record<string, Minted>;
let exporter: Server;
let prometheus: ChildProcess | undefined;
let prometheusUrl: string | undefined;
let taskType: string;
const violations: string[] = [];

/** The minute all the near tasks are due in (10 minutes ahead) and the hour of the far ones (3 h). */
let nearMinute: number;
let farHour: number;

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** A real Prometheus scraping `target` every second, on loopback. */
async function startPrometheus(target: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'console-prometheus-'));
  writeFileSync(
    join(dir, 'prometheus.yml'),
    `global: { scrape_interval: 1s }\nscrape_configs:\n  - job_name: worker\n    static_configs: [{ targets: ['${target}'] }]\n`,
  );
  const port = await freePort();
  prometheus = spawn(
    'prometheus',
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
    ],
    { stdio: 'ignore' },
  );
  const url = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await fetch(`${url}/-/ready`).catch(() => undefined))?.ok === true, {
    timeoutMs: 30_000,
    what: 'Prometheus ready',
  });
  return url;
}

async function create(owner: string, taskId: string, executeAt?: number) {
  const { task } = await h.tasks.commands.create(ownerAccess(owner), {
    taskId,
    taskType,
    payload: { n: 1 },
    ...(executeAt === undefined ? { delaySeconds: 0 } : { executeAt: new Date(executeAt).toISOString() }),
    callbackUrl: receiver.url,
    maxRetries: 0,
  });
  return task;
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  h = await Harness.start({ env: { CONSOLE_ENABLED: 'true' } });
  receiver = await CallbackReceiver.start();
  taskType = h.taskType('charts');

  // The worker's metrics on loopback, as the worker process serves them, for Prometheus to scrape.
  exporter = createServer((_req, res) => {
    void h.workerMetrics.registry
      .metrics()
      .then((text) => res.writeHead(200, { 'content-type': h.workerMetrics.registry.contentType }).end(text));
  });
  await new Promise<void>((resolve) => exporter.listen(0, '127.0.0.1', resolve));
  if (hasPrometheus) {
    prometheusUrl = await startPrometheus(`127.0.0.1:${(exporter.address() as AddressInfo).port}`);
  }

  // Near: due in one minute 10 minutes ahead (3 of orders, 2 of billing). Far: 4 of orders in 3 h.
  const now = Date.now();
  nearMinute = Math.floor((now + 10 * MINUTE) / MINUTE) * MINUTE;
  farHour = Math.floor((now + 3 * HOUR) / HOUR) * HOUR;
  for (let i = 0; i < 3; i++) await create('orders', uniqueId('near-o'), nearMinute + 20_000 + i);
  for (let i = 0; i < 2; i++) await create('billing', uniqueId('near-b'), nearMinute + 30_000 + i);
  for (let i = 0; i < 4; i++) await create('orders', uniqueId('far-o'), farHour + 5 * MINUTE + i);
  // Closed in this hour, all of orders: 2 SUCCEEDED, 1 FAILED (a 400 is permanent), 1 CANCELLED.
  const failing = uniqueId('fails');
  receiver.script(failing, [{ status: 400 }]);
  const done = [await create('orders', uniqueId('ok')), await create('orders', uniqueId('ok'))];
  const failed = await create('orders', failing);
  const cancelled = await create('orders', uniqueId('cancel'), now + HOUR);
  await h.tasks.commands.cancel(ownerAccess('orders'), cancelled.taskId);
  const settled = (taskId: string, status: string) =>
    waitFor(async () => (await h.tasks.reader.task('orders', taskId)).status === status, {
      timeoutMs: 30_000,
      what: `task ${taskId} to be ${status}`,
    });
  for (const task of done) await settled(task.taskId, 'SUCCEEDED');
  await settled(failed.taskId, 'FAILED');

  const minted = mintKeys({
    admin: { owner: 'ops', scopes: ['tasks:read', 'admin'] },
    orders: { owner: 'orders', scopes: ['tasks:read'] },
    billing: { owner: 'billing', scopes: ['tasks:read'] },
  });
  keys = minted.minted;
  const keysFile = join(mkdtempSync(join(tmpdir(), 'console-charts-keys-')), 'api-keys.json');
  writeKeysFile(keysFile, minted.file);
  app = await buildServer({
    config: { ...h.config, console: { ...h.config.console, prometheusUrl } },
    tasks: h.tasks,
    metrics: new ApiMetrics({ readCounts: async () => ({ byStatus: {}, oldestOverdueSeconds: 0 }) }),
    keys: new KeyStore(keysFile, pino({ level: 'silent' })),
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  mkdirSync(SCREENSHOTS, { recursive: true });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
  prometheus?.kill('SIGTERM');
  exporter?.close();
  await receiver?.close();
  await h?.stop();
});

async function logIn(key: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  const tab = await context.newPage();
  tab.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  await tab.goto(`${base}/console/login`);
  await tab.fill('input[name="key"]', key);
  await tab.click('button:has-text("Log in")');
  await tab.waitForURL(`${base}/console`);
  return tab;
}

/** Each row of a chart's table: its range and the number in each series column. */
async function table(tab: Page, chart: string): Promise<{ range: string; values: Record<string, number> }[]> {
  const rows = await tab.$$eval(`table[data-chart-table="${chart}"]`, (tables) => {
    const el = tables[0] as unknown as {
      querySelectorAll(s: string): ArrayLike<{ textContent: string | null }>;
      querySelector(s: string): { querySelectorAll(s: string): ArrayLike<{ textContent: string | null }> };
    };
    const heads = Array.from(el.querySelector('thead tr').querySelectorAll('th')).map(
      (th) => th.textContent ?? '',
    );
    return Array.from(
      el.querySelectorAll('tbody tr') as unknown as ArrayLike<{
        querySelectorAll(s: string): ArrayLike<{ textContent: string | null }>;
      }>,
    ).map((tr) =>
      Array.from(tr.querySelectorAll('td')).map((td, i) => [heads[i] ?? '', td.textContent ?? '']),
    );
  });
  return rows.map((cells) => ({
    range: cells[0]![1]!.trim(),
    values: Object.fromEntries(cells.slice(1).map(([head, text]) => [head, Number(text)])),
  }));
}

const sum = (rows: { values: Record<string, number> }[], series: string) =>
  rows.reduce((total, row) => total + (row.values[series] ?? 0), 0);

describe('console charts', () => {
  it("an admin sees every owner's tasks of the type: due by minute, by hour, closed by hour", async () => {
    const tab = await logIn(keys.admin!.key);
    await tab.goto(`${base}/console/types/${encodeURIComponent(taskType)}`);
    const byMinute = await table(tab, 'due-by-minute');
    expect(byMinute).toHaveLength(60);
    const near = byMinute.find((row) => row.range.startsWith(new Date(nearMinute).toISOString()));
    expect(near?.values.SCHEDULED).toBe(5);
    expect(sum(byMinute, 'SCHEDULED')).toBe(5);
    // The bar itself says the same: its data-total and its tooltip.
    const bar = tab.locator(`figure[data-chart="due-by-minute"] g.bar[data-total="5"]`);
    await expect(bar.count()).resolves.toBe(1);
    const byHour = await table(tab, 'due-by-hour');
    expect(byHour).toHaveLength(24);
    expect(sum(byHour, 'SCHEDULED')).toBe(9);
    expect(
      byHour.find((row) => row.range.startsWith(new Date(farHour).toISOString()))?.values.SCHEDULED,
    ).toBe(4);
    const outcomes = await table(tab, 'outcomes-by-hour');
    expect(outcomes).toHaveLength(24);
    expect([sum(outcomes, 'SUCCEEDED'), sum(outcomes, 'FAILED'), sum(outcomes, 'CANCELLED')]).toEqual([
      2, 1, 1,
    ]);
    // The failure rate of the hour they closed in: 1 FAILED of 3 finished (CANCELLED is not finished).
    const closedHour = outcomes.findIndex((row) => row.values.FAILED === 1);
    await expect(
      tab
        .locator('table[data-chart-table="outcomes-by-hour"] tbody tr')
        .nth(closedHour)
        .locator('td')
        .last()
        .textContent(),
    ).resolves.toBe('33.3%');

    // A click on the near bar lists exactly those tasks.
    await bar.click();
    await tab.waitForURL(/\/console\/tasks\?/);
    await expect(tab.locator('#tasks tbody tr[data-task-id]').count()).resolves.toBe(5);
    await tab.context().close();
  });

  it('an owner sees only its own tasks in every chart', async () => {
    for (const [key, near, hour, closed] of [
      [keys.orders!.key, 3, 7, [2, 1, 1]],
      [keys.billing!.key, 2, 2, [0, 0, 0]],
    ] as const) {
      const tab = await logIn(key);
      await tab.goto(`${base}/console/types/${encodeURIComponent(taskType)}`);
      expect(sum(await table(tab, 'due-by-minute'), 'SCHEDULED')).toBe(near);
      expect(sum(await table(tab, 'due-by-hour'), 'SCHEDULED')).toBe(hour);
      const outcomes = await table(tab, 'outcomes-by-hour');
      expect([sum(outcomes, 'SUCCEEDED'), sum(outcomes, 'FAILED'), sum(outcomes, 'CANCELLED')]).toEqual(
        closed,
      );
      // Naming another owner changes nothing for a non-admin: the charts stay its own.
      await tab.goto(`${base}/console/types/${encodeURIComponent(taskType)}?owner=ops`);
      expect(sum(await table(tab, 'due-by-minute'), 'SCHEDULED')).toBe(near);
      // The workers' metrics are not per owner: no lag panel for an owner's key.
      await expect(tab.locator('#lag-panel').getAttribute('data-lag')).resolves.toBe('admins-only');
      await tab.context().close();
    }
  });

  it('the outcome bar of this hour lists the tasks that closed in it', async () => {
    const tab = await logIn(keys.orders!.key);
    await tab.goto(`${base}/console/types/${encodeURIComponent(taskType)}`);
    await tab.locator('figure[data-chart="outcomes-by-hour"] svg a:has(g.bar[data-total="4"])').click();
    await tab.waitForURL(/closedAfter=/);
    await expect(tab.locator('#closed-range').count()).resolves.toBe(1);
    const statuses = await tab.locator('#tasks tbody tr[data-task-id] td.status').allTextContents();
    expect(statuses.sort()).toEqual(['CANCELLED', 'FAILED', 'SUCCEEDED', 'SUCCEEDED']);
    await tab.context().close();
  });

  it.skipIf(!hasPrometheus && !prometheusRequired)(
    'the lag panel shows fire lag and attempts per type from Prometheus',
    async () => {
      expect(hasPrometheus, 'prometheus is required under CI=true: apt-get install prometheus').toBe(true);
      const tab = await logIn(keys.admin!.key);
      // rate() and increase() need the series to grow between two scrapes: once Prometheus has the
      // type's series (the tasks above), one more callback makes the lag and attempts measurable.
      await waitFor(
        async () => {
          const response = await fetch(
            `${prometheusUrl}/api/v1/query?query=${encodeURIComponent(`delayed_tasks_fire_lag_seconds_count{task_type="${taskType}"}`)}`,
          );
          const body = (await response.json()) as { data: { result: unknown[] } };
          return body.data.result.length > 0;
        },
        { timeoutMs: 30_000, what: 'Prometheus to have scraped the type' },
      );
      const late = await create('orders', uniqueId('late'));
      await waitFor(async () => (await h.tasks.reader.task('orders', late.taskId)).status === 'SUCCEEDED', {
        timeoutMs: 30_000,
        what: 'the late task to succeed',
      });
      const row = tab.locator(`#lag-panel tr[data-lag-type="${taskType}"]`);
      await waitFor(
        async () => {
          await tab.goto(`${base}/console/types/${encodeURIComponent(taskType)}`);
          return (await row.count()) === 1 && /\d/.test((await row.locator('td').nth(1).textContent()) ?? '');
        },
        { timeoutMs: 60_000, what: 'the lag row of the type, with a p50' },
      );
      const cells = await row.locator('td').allTextContents();
      expect(cells[0]).toBe(taskType);
      expect(cells[1]).toMatch(/^\d+(\.\d+)? (ms|s)$/);
      await expect(tab.locator('#lag-panel th').allTextContents()).resolves.toContain('Attempts: success');
      await tab.screenshot({ path: join(SCREENSHOTS, 'type-charts.png'), fullPage: true });
      await tab.context().close();
    },
    90_000,
  );

  it('without PROMETHEUS_URL the page says the lag panel is hidden and why', async () => {
    const bare = await buildServer({
      config: { ...h.config, console: { ...h.config.console, prometheusUrl: undefined } },
      tasks: h.tasks,
      metrics: new ApiMetrics({ readCounts: async () => ({ byStatus: {}, oldestOverdueSeconds: 0 }) }),
    });
    try {
      const response = await bare.inject({ url: '/console' });
      expect(response.statusCode).toBe(200);
      expect(response.body).toContain('data-lag="hidden"');
      expect(response.body).toContain('PROMETHEUS_URL is not set');
    } finally {
      await bare.close();
    }
  });

  it('no chart breaks the Content Security Policy', () => {
    expect(violations).toEqual([]);
  });
});
