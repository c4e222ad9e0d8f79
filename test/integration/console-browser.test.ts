/**
 * The console in a real browser: headless Chromium (Debian's package, through playwright-core with
 * an explicit executable path) against the API listening on loopback, the workers and the Temporal
 * dev server, with a real callback receiver. Takes the README's screenshots (docs/console/*.png).
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { NativeConnection, Worker } from '@temporalio/worker';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServer } from '../helpers/server.js';
import { ApiMetrics } from '../../src/api/metrics.js';
import { taskStartOptions } from '../../src/tasks/start-options.js';
import { KeyStore } from '../../src/auth/key-store.js';
import { TASK_WORKFLOW_TYPE } from '../../src/shared/constants.js';
import { CallbackFailureType, type TaskSpec } from '../../src/shared/task.js';
import { Harness, mintKeys, writeKeysFile, type Minted } from '../helpers/harness.js';
import { temporalScheduleId } from '../../src/schedules/input.js';
import { DEFAULT_OWNER } from '../../src/shared/owner.js';
import { deleteSchedule } from '../helpers/schedules.js';
import { deadLetter as deadLetterOf, uniqueId, waitForStatus } from '../helpers/tasks.js';
import { waitFor } from '../helpers/wait.js';

const CHROMIUM = '/usr/bin/chromium';
// The README's screenshots are rewritten only on request, so that a test run leaves the tree clean.
const SCREENSHOTS = process.env.UPDATE_SCREENSHOTS === '1' ? 'docs/console' : '.data/console-screenshots';

const HOSTILE = '<img src=x onerror="window.__pwned=1">';

let h: Harness;
let browser: Browser;
let page: Page;
let base: string;
const violations: string[] = [];
/** A second API process of the same deployment with API keys on (login, roles), on its own port. */
let keyed: FastifyInstance;
let keyedBase: string;
let keys: Record<string, Minted>;
/** An attacker's page on another site (`localhost`, while the console is on 127.0.0.1). */
let attacker: Server;
let attackerBase: string;
let attackForm = '';

/** Reports every CSP violation of a page on the console, where `violations` collects them. */
async function watchCsp(target: Page): Promise<void> {
  target.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  // Runs in the page before its own scripts (through the DevTools protocol, not subject to the CSP).
  await target.addInitScript({
    content: `document.addEventListener('securitypolicyviolation', (event) => {
      console.error('Content Security Policy violation: ' + event.violatedDirective + ' ' + event.blockedURI);
    });`,
  });
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  h = await Harness.start({ env: { CONSOLE_ENABLED: 'true', TEMPORAL_UI_URL: 'http://127.0.0.1:8233' } });
  await h.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  page = await browser.newPage({ viewport: { width: 1100, height: 720 } });
  await watchCsp(page);
  mkdirSync(SCREENSHOTS, { recursive: true });

  const minted = mintKeys({
    reader: { owner: 'default', scopes: ['tasks:read'] },
    operator: { owner: 'default', scopes: ['tasks:read', 'tasks:write', 'admin'] },
  });
  keys = minted.minted;
  const keysFile = join(mkdtempSync(join(tmpdir(), 'console-browser-keys-')), 'api-keys.json');
  writeKeysFile(keysFile, minted.file);
  keyed = await buildServer({
    config: h.config,
    tasks: h.tasks,
    metrics: new ApiMetrics({ readCounts: async () => ({ byStatus: {}, oldestOverdueSeconds: 0 }) }),
    keys: new KeyStore(keysFile, pino({ level: 'silent' })),
  });
  await keyed.listen({ host: '127.0.0.1', port: 0 });
  keyedBase = `http://127.0.0.1:${(keyed.server.address() as AddressInfo).port}`;
  attacker = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(attackForm));
  await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
  attackerBase = `http://localhost:${(attacker.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await browser?.close();
  await keyed?.close();
  attacker?.close();
  await h?.stop();
});

/** A fresh browser profile logged in to the keyed console with `key`. */
async function loggedIn(key: string): Promise<{ context: BrowserContext; tab: Page }> {
  const context = await browser.newContext({ viewport: { width: 1100, height: 720 } });
  const tab = await context.newPage();
  await watchCsp(tab);
  await tab.goto(`${keyedBase}/console`);
  expect(new URL(tab.url()).pathname).toBe('/console/login');
  await tab.fill('input[name="key"]', key);
  await tab.click('button:has-text("Log in")');
  await expect(tab.locator('.who').textContent()).resolves.toContain('owner default');
  return { context, tab };
}

/** Posts a form from inside `tab` (same site, its cookies) and returns the answer's status and text. */
async function postFrom(tab: Page, action: string, fields: Record<string, string>) {
  const navigation = tab.waitForNavigation();
  // A string: the test runs without the DOM's types, the page with them.
  await tab.evaluate(`(() => {
    const form = document.createElement('form');
    form.method = 'post';
    form.action = ${JSON.stringify(action)};
    for (const [name, value] of Object.entries(${JSON.stringify(fields)})) {
      const input = document.createElement('input');
      input.type = 'hidden';
      input.name = name;
      input.value = value;
      form.append(input);
    }
    document.body.append(form);
    form.submit();
  })()`);
  const response = await navigation;
  return { status: response?.status(), text: await tab.locator('body').textContent() };
}

async function scheduled(): Promise<string> {
  const taskId = uniqueId('forge');
  const created = await h.create({
    taskId,
    taskType: h.taskType('forge'),
    payload: {},
    delaySeconds: 3600,
    callbackUrl: h.receiver.url,
  });
  expect(created.status).toBe(201);
  return taskId;
}

async function deadLetter(): Promise<string> {
  const scripted = [{ status: 400 }, { status: 200 }];
  return (await deadLetterOf(h, h.taskType('forge'), 'forge', {}, scripted)).taskId;
}

/** Reloads `url` until `selector` is on the page (visibility is eventually consistent). */
async function openUntil(url: string, selector: string): Promise<void> {
  await waitFor(
    async () => {
      await page.goto(url);
      return (await page.locator(selector).count()) > 0;
    },
    { timeoutMs: 30_000, intervalMs: 250, what: `${selector} on ${url}` },
  );
}

describe('console in a browser', () => {
  it('replays a dead letter with an edited payload from the replay panel', async () => {
    const taskType = h.taskType('invoice');
    const taskId = uniqueId('dead');
    // The first attempt fails permanently (400); the replayed run's attempt succeeds.
    h.receiver.script(taskId, [{ status: 400 }, { status: 200 }]);
    const created = await h.create({
      taskId,
      taskType,
      payload: { invoice: 42, note: '<img src=x onerror=alert(1)>' },
      delaySeconds: 0,
      callbackUrl: h.receiver.url,
      maxRetries: 0,
    });
    expect(created.status).toBe(201);
    await waitForStatus(h, taskId, 'FAILED');

    await openUntil(`${base}/console/tasks?status=FAILED`, `tr[data-task-id="${taskId}"]`);
    await expect(page.locator(`tr[data-task-id="${taskId}"] .last-error`).textContent()).resolves.toContain(
      '400',
    );
    await page.screenshot({ path: `${SCREENSHOTS}/dead-letters.png` });

    await page.click(`tr[data-task-id="${taskId}"] a`);
    await page.click('text=Replay this task');
    await expect(page.locator('#original-payload').textContent()).resolves.toContain('"invoice": 42');

    // Invalid JSON: refused inline, field by field; nothing reaches the receiver.
    await page.fill('#payload', '{"invoice": 43,');
    await page.fill('input[name="reason"]', 'customer fixed the address');
    await page.click('button:has-text("Replay now")');
    await expect(page.locator('#replay-errors').textContent()).resolves.toContain(
      'payload is not valid JSON',
    );
    await expect(page.locator('p.error[data-field="payload"]').count()).resolves.toBe(1);
    // Too deep for the API's limit (MAX_PAYLOAD_DEPTH 5): the API's own detail, inline.
    await page.fill('#payload', '{"a":{"b":{"c":{"d":{"e":{"f":1}}}}}}');
    await page.click('button:has-text("Replay now")');
    await expect(page.locator('#replay-errors').textContent()).resolves.toMatch(
      /payload.*(deep|depth|nest)/i,
    );
    expect(h.receiver.callsFor(taskId)).toHaveLength(1);

    await page.fill('#payload', JSON.stringify({ invoice: 43, address: 'fixed' }, null, 2));
    await page.fill('input[name="payloadVersion"]', '2');
    await page.screenshot({ path: `${SCREENSHOTS}/replay-panel.png` });
    await page.click('button:has-text("Replay now")');
    await expect(page.locator('.flash').textContent()).resolves.toContain('Replayed');

    const [first, second] = await h.receiver.waitForCalls(taskId, 2);
    expect(second!.body.payload).toEqual({ invoice: 43, address: 'fixed' });
    expect(second!.body.payloadVersion).toBe(2);
    expect(second!.headers['idempotency-key']).toBe(first!.headers['idempotency-key']);
    await openUntil(`${base}/console/tasks/${taskId}`, '#task-status:has-text("SUCCEEDED")');

    await page.goto(`${base}/console`);
    await expect(page.locator('#refreshed-at').textContent()).resolves.toMatch(/^\d{4}-\d{2}-\d{2}T/);
    await openUntil(`${base}/console`, '[data-count="SUCCEEDED"]:text-is("1")');
    await expect(page.locator('[data-count="FAILED"]').textContent()).resolves.toBe('0');
    await page.screenshot({ path: `${SCREENSHOTS}/overview.png` });
    expect(violations).toEqual([]);
  }, 120_000);

  it('bulk-replays exactly the failed tasks of one type, after showing their count', async () => {
    const taskType = h.taskType('bulk');
    const otherType = h.taskType('other');
    const failed = async (type: string) => {
      const taskId = uniqueId('bulk');
      h.receiver.script(taskId, [{ status: 400 }, { status: 200 }]);
      const created = await h.create({
        taskId,
        taskType: type,
        payload: { n: 1 },
        delaySeconds: 0,
        callbackUrl: h.receiver.url,
        maxRetries: 0,
      });
      expect(created.status).toBe(201);
      return taskId;
    };
    const chosen = [await failed(taskType), await failed(taskType)];
    const other = await failed(otherType);
    for (const taskId of [...chosen, other]) await waitForStatus(h, taskId, 'FAILED');

    // From the dead-letter list of that type; the same list narrowed by an id prefix offers no bulk.
    const listed = `${base}/console/tasks?${new URLSearchParams({ status: 'FAILED', taskType }).toString()}`;
    await openUntil(`${listed}&idPrefix=${chosen[0]!}`, `tr[data-task-id="${chosen[0]!}"]`);
    await expect(page.locator('#tasks tbody tr').count()).resolves.toBe(1);
    await expect(page.locator('#bulk-link').count()).resolves.toBe(0);
    await expect(page.locator('#bulk-unavailable').count()).resolves.toBe(1);
    await openUntil(listed, `tr[data-task-id="${chosen[1]!}"]`);
    await page.click('#bulk-link');
    expect(new URL(page.url()).pathname).toBe('/console/bulk');
    await openUntil(page.url(), '#bulk-count b:text-is("2")');
    await page.fill('input[name="reason"]', 'receiver fixed');
    await page.click('button:has-text("Run replay")');
    await expect(page.locator('h1').textContent()).resolves.toMatch(/^Batch replay-/);
    const batchUrl = page.url();
    await openUntil(batchUrl, '#batch-state:text-is("COMPLETED")');
    for (const taskId of chosen) {
      const calls = await h.receiver.waitForCalls(taskId, 2);
      expect(calls[1]!.headers['idempotency-key']).toBe(calls[0]!.headers['idempotency-key']);
      await waitForStatus(h, taskId, 'SUCCEEDED');
    }
    expect(h.receiver.callsFor(other)).toHaveLength(1);
    expect((await h.get(other)).body.status).toBe('FAILED');
    expect(violations).toEqual([]);
  }, 120_000);

  it('shows the attempt history of a task that failed, then succeeded, and finds it by id prefix', async () => {
    const taskId = uniqueId('attempts');
    h.receiver.script(taskId, [{ status: 503 }, { status: 200 }]);
    const created = await h.create({
      taskId,
      taskType: h.taskType('attempts'),
      payload: { n: 1 },
      delaySeconds: 0,
      callbackUrl: h.receiver.url,
      maxRetries: 2,
    });
    expect(created.status).toBe(201);
    await waitForStatus(h, taskId, 'SUCCEEDED');

    await page.goto(`${base}/console/tasks`);
    await page.fill('input[name="idPrefix"]', taskId.slice(0, -2));
    await page.click('button:has-text("Filter")');
    await expect(page.locator('#tasks tbody tr[data-task-id]').count()).resolves.toBe(1);
    await page.click(`tr[data-task-id="${taskId}"] a`);
    const rows = page.locator('#attempts tbody tr');
    await expect(rows.count()).resolves.toBe(2);
    const first = await rows.nth(0).textContent();
    expect(first).toContain('RETRYABLE_ERROR');
    expect(first).toContain('503');
    expect(first).toContain('callback answered HTTP 503');
    const second = await rows.nth(1).textContent();
    expect(second).toContain('SUCCEEDED');
    expect(second).toContain('200');
    // A callback's attempt is bounded by the task's timeout, shown (a pull task's is its lease's).
    await expect(page.locator('dt:text-is("Timeout") + dd').textContent()).resolves.toMatch(/^\d+ ms$/);
    await page.locator('#attempts').screenshot({ path: `${SCREENSHOTS}/task-attempts.png` });
    expect(violations).toEqual([]);
  }, 120_000);

  it('shows the read-only role no action, and refuses its forged POSTs with nothing changed', async () => {
    const open = await scheduled();
    const failed = await deadLetter();
    const before = { open: (await h.get(open)).body, failed: (await h.get(failed)).body };
    const { context, tab } = await loggedIn(keys.reader!.key);
    try {
      await expect(tab.locator('.who').getAttribute('data-role')).resolves.toBe('read-only');
      await expect(tab.locator('header a[href="/console/bulk"]').count()).resolves.toBe(0);
      for (const taskId of [open, failed]) {
        await tab.goto(`${keyedBase}/console/tasks/${taskId}`);
        await expect(tab.locator('#task-status').count()).resolves.toBe(1);
        await expect(tab.locator('main form, main button, main a:has-text("Replay")').count()).resolves.toBe(
          0,
        );
      }
      // The reader's own valid CSRF token (its logout form's): the forgery is as good as it gets.
      const _csrf = await tab.locator('input[name="_csrf"]').first().inputValue();
      const forgeries = [
        [`/console/tasks/${open}/cancel`, { _csrf, reason: 'forged' }],
        [`/console/tasks/${open}/reschedule`, { _csrf, reason: 'forged', executeAt: '2030-01-01T00:00' }],
        [
          `/console/tasks/${failed}/replay`,
          { _csrf, reason: 'forged', payload: '{"forged":true}', payloadVersion: '1', maxRetries: '0' },
        ],
        [
          '/console/bulk',
          {
            _csrf,
            reason: 'forged',
            operation: 'replay',
            status: 'FAILED',
            taskType: before.failed.taskType,
          },
        ],
      ] as const;
      for (const [action, fields] of forgeries) {
        const answer = await postFrom(tab, action, fields);
        expect(answer.status, action).toBe(403);
        expect(answer.text, action).toContain('PERMISSION_DENIED');
      }
      // Nothing changed: the same state, and the receiver got nothing more.
      expect((await h.get(open)).body).toEqual(before.open);
      expect((await h.get(failed)).body).toEqual(before.failed);
      expect(h.receiver.callsFor(open)).toHaveLength(0);
      expect(h.receiver.callsFor(failed)).toHaveLength(1);
      expect(violations).toEqual([]);
    } finally {
      await context.close();
    }
  }, 120_000);

  it('refuses a POST without the CSRF token, from the console or another site, with nothing changed', async () => {
    const taskId = await scheduled();
    const before = (await h.get(taskId)).body;
    const { context, tab } = await loggedIn(keys.operator!.key);
    try {
      await tab.goto(`${keyedBase}/console/tasks/${taskId}`);
      await expect(tab.locator('button:has-text("Cancel task")').count()).resolves.toBe(1);
      const missing = await postFrom(tab, `/console/tasks/${taskId}/cancel`, { reason: 'no token' });
      expect(missing.status).toBe(403);
      expect(missing.text).toContain('CSRF');
      const wrong = await postFrom(tab, `/console/tasks/${taskId}/cancel`, {
        reason: 'bad',
        _csrf: 'x'.repeat(40),
      });
      expect(wrong.status).toBe(403);

      // Another site's page submits a form into the console in the operator's browser.
      attackForm = `<form method="post" action="${keyedBase}/console/tasks/${taskId}/cancel"><input name="reason" value="csrf"><button>win a prize</button></form>`;
      await tab.goto(attackerBase);
      const [response] = await Promise.all([tab.waitForNavigation(), tab.click('button')]);
      expect(response?.status()).toBe(403);
      expect((await h.get(taskId)).body).toEqual(before);
      expect(h.receiver.callsFor(taskId)).toHaveLength(0);

      // The operator's own form does cancel: the refusals above were the token's doing.
      await tab.goto(`${keyedBase}/console/tasks/${taskId}`);
      await tab.fill('form[action$="/cancel"] input[name="reason"]', 'customer asked');
      await tab.click('button:has-text("Cancel task")');
      await expect(tab.locator('#task-status').textContent()).resolves.toBe('CANCELLED');
      expect(violations).toEqual([]);
    } finally {
      await context.close();
    }
  }, 120_000);

  it('renders the schedules page and one schedule with its next runs as Temporal lists them', async () => {
    const scheduleId = uniqueId('browser-schedule');
    const created = await h.call('POST', '/api/v1/schedules', {
      payload: {
        scheduleId,
        cron: '0 2 * * *',
        timeZone: 'Europe/Berlin',
        task: { taskType: 'report.generate', payload: { report: 'daily' }, callbackUrl: h.receiver.url },
      },
    });
    expect(created.status).toBe(201);
    try {
      await openUntil(`${base}/console/schedules`, `tr[data-schedule-id="${scheduleId}"]`);
      await page.click(`tr[data-schedule-id="${scheduleId}"] a`);
      await page.waitForSelector('#next-runs li');
      expect(await page.textContent('#schedule-spec')).toContain(
        'every day at 02:00 (0 2 * * *), time zone Europe/Berlin',
      );
      const shown = await page
        .locator('#next-runs time')
        .evaluateAll((times) => times.map((time) => time.getAttribute('datetime')));
      const described = await h.client.schedule
        .getHandle(temporalScheduleId(DEFAULT_OWNER, scheduleId))
        .describe();
      expect(shown).toEqual(described.info.nextActionTimes.slice(0, 10).map((time) => time.toISOString()));
      expect(shown).toHaveLength(10);
      expect(await page.locator('#pause-form').count()).toBe(1);
      await page.screenshot({ path: `${SCREENSHOTS}/schedule.png`, fullPage: true });
    } finally {
      expect(await deleteSchedule(h, scheduleId)).toBe(204);
    }
  });

  it('serves a strict CSP, raises no violation, and renders hostile lastError text inert', async () => {
    // lastError is what a callback attempt reported: an activity on a queue of this test reports hostile text.
    const taskId = uniqueId('hostile');
    const queue = `hostile-${randomUUID()}`;
    const connection = await NativeConnection.connect({ address: h.config.temporal.address });
    const worker = await Worker.create({
      connection,
      namespace: h.config.temporal.namespace,
      taskQueue: queue,
      dataConverter: h.dataConverter,
      activities: {
        deliverCallback: async () => {
          throw ApplicationFailure.create({
            type: CallbackFailureType.Permanent,
            message: `callback answered HTTP 400 ${HOSTILE}`,
            details: [{ statusCode: 400 }],
            nonRetryable: true,
          });
        },
      },
    });
    const running = worker.run();
    try {
      const now = new Date().toISOString();
      const spec: TaskSpec = {
        taskId,
        owner: 'default',
        taskType: h.taskType('hostile'),
        payload: {},
        payloadVersion: 1,
        executeAt: now,
        callbackUrl: h.receiver.url,
        maxRetries: 0,
        timeoutMs: 5000,
        traceId: null,
        priority: 3,
        createdAt: now,
        callbackTaskQueue: queue,
      };
      await h.client.workflow.start(
        TASK_WORKFLOW_TYPE,
        taskStartOptions(spec, 'hostile', h.taskQueue, 'REJECT_DUPLICATE'),
      );
      await waitForStatus(h, taskId, 'FAILED');
    } finally {
      worker.shutdown();
      await running;
      await connection.close();
    }
    expect((await h.get(taskId)).body.lastError?.message).toContain(HOSTILE);

    for (const url of [
      `${base}/console/tasks/${taskId}`,
      `${base}/console/tasks?status=FAILED&idPrefix=${taskId}`,
    ]) {
      const response = await page.goto(url);
      const csp = response?.headers()['content-security-policy'] ?? '';
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      await expect(page.locator('body').textContent()).resolves.toContain(HOSTILE);
      await expect(page.locator('main img').count()).resolves.toBe(0);
    }
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    expect(violations).toEqual([]);

    // The violation detector itself works: an inline script added to the page is blocked and reported.
    await page.evaluate(`(() => {
      const script = document.createElement('script');
      script.textContent = 'window.__inline = 1';
      document.body.append(script);
    })()`);
    await waitFor(() => violations.length > 0, {
      timeoutMs: 5_000,
      intervalMs: 50,
      what: 'a CSP violation report',
    });
    expect(await page.evaluate('window.__inline')).toBeUndefined();
    violations.length = 0;
  }, 120_000);
});
