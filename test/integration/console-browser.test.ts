/**
 * The console in a real browser: headless Chromium (Debian's package, through playwright-core with
 * an explicit executable path) against the API listening on loopback, the workers and the Temporal
 * dev server, with a real callback receiver. Takes the README's screenshots (docs/console/*.png).
 */
import { existsSync, mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness } from '../helpers/harness.js';
import { uniqueId, waitForStatus } from '../helpers/tasks.js';
import { waitFor } from '../helpers/wait.js';

const CHROMIUM = '/usr/bin/chromium';
// The README's screenshots are rewritten only on request, so that a test run leaves the tree clean.
const SCREENSHOTS = process.env.UPDATE_SCREENSHOTS === '1' ? 'docs/console' : '.data/console-screenshots';

let h: Harness;
let browser: Browser;
let page: Page;
let base: string;
const violations: string[] = [];

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  h = await Harness.start({ env: { CONSOLE_ENABLED: 'true', TEMPORAL_UI_URL: 'http://127.0.0.1:8233' } });
  await h.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  page = await browser.newPage({ viewport: { width: 1100, height: 720 } });
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  // Runs in the page before its own scripts (through the DevTools protocol, not subject to the CSP).
  await page.addInitScript({
    content: `document.addEventListener('securitypolicyviolation', (event) => {
      console.error('Content Security Policy violation: ' + event.violatedDirective + ' ' + event.blockedURI);
    });`,
  });
  mkdirSync(SCREENSHOTS, { recursive: true });
});
afterAll(async () => {
  await browser?.close();
  await h?.stop();
});

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

    const query = new URLSearchParams({ operation: 'replay', status: 'FAILED', taskType });
    await openUntil(`${base}/console/bulk?${query.toString()}`, '#bulk-count b:text-is("2")');
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
});
