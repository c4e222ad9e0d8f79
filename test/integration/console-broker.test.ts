/**
 * A broker task in the console, in a real browser (Debian's Chromium through playwright-core, as
 * console-browser.test.ts), against a real RabbitMQ (scripts/local-server.sh): a task's page names its
 * target (the declared broker, the exchange and the routing key) where a callback task names its URL,
 * and a dead-lettered one shows the broker's last error. The routing key is the task's own text and
 * reaches the last error too: markup planted in it shows as text and runs nothing.
 */
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import amqp from 'amqplib';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localServer, writeBrokersFile } from '../helpers/brokers.js';
import { Harness } from '../helpers/harness.js';
import { uniqueId, waitForStatus } from '../helpers/tasks.js';

const CHROMIUM = '/usr/bin/chromium';
const HOSTILE = '<img src=x onerror="window.__pwned=1">';
const taskType = `console.broker.${uniqueId('t')}`;
const exchange = `console.${uniqueId('x')}`;

let h: Harness;
let browser: Browser;
let page: Page;
let base: string;
const violations: string[] = [];
/** Closes the connection that holds the test's exclusive queue. */
let onClose: (() => Promise<void>) | undefined;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  const url = localServer('rabbitmq');
  const admin = await amqp.connect(url);
  const channel = await admin.createChannel();
  await channel.assertExchange(exchange, 'direct', { durable: false, autoDelete: true });
  const { queue } = await channel.assertQueue('', { exclusive: true });
  await channel.bindQueue(queue, exchange, taskType);
  const bare = new URL(url);
  bare.username = '';
  bare.password = '';
  h = await Harness.start({
    env: {
      CONSOLE_ENABLED: 'true',
      TEST_RABBIT_PASSWORD: 'guest',
      BROKERS_FILE: writeBrokersFile({
        bus: {
          kind: 'rabbitmq',
          url: bare.toString(),
          username: 'guest',
          passwordEnv: 'TEST_RABBIT_PASSWORD',
          owners: { default: ['console.*'] },
        },
      }),
    },
  });
  // The exclusive queue lives as long as this connection: closed after the tests.
  onClose = () => admin.close();
  await h.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await h?.stop();
  await onClose?.();
});

/** The text of the `<dd>` after the `<dt>` named `name` on the task's page. */
const row = (name: string) =>
  page.locator('dl dt', { hasText: new RegExp(`^${name}$`) }).locator('xpath=following-sibling::dd[1]');

describe("a broker task's page in the console", () => {
  it('names its target: the declared broker, the exchange and the routing key, and no callback URL', async () => {
    const taskId = uniqueId('console.published');
    const created = await h.create({
      taskType,
      taskId,
      payload: {},
      delaySeconds: 0,
      delivery: { mode: 'broker', broker: 'bus', exchange },
    });
    expect(created.status).toBe(201);
    await waitForStatus(h, taskId, 'SUCCEEDED');
    await page.goto(`${base}/console/tasks/${encodeURIComponent(taskId)}`);
    await expect(page.locator('#task-status').textContent()).resolves.toBe('SUCCEEDED');
    await expect(row('Target').textContent()).resolves.toBe(
      `rabbitmq broker bus → exchange ${exchange}, routing key ${taskType} (the task type)`,
    );
    await expect(row('Callback URL').count()).resolves.toBe(0);
    await expect(row('Last error').textContent()).resolves.toBe('–');
  });

  it("shows a dead letter's target and the broker's last error as text, markup in the routing key inert", async () => {
    const taskId = uniqueId('console.unroutable');
    const created = await h.create({
      taskType,
      taskId,
      payload: {},
      delaySeconds: 0,
      maxRetries: 0,
      delivery: { mode: 'broker', broker: 'bus', exchange, routingKey: HOSTILE },
    });
    expect(created.status).toBe(201);
    const failed = await waitForStatus(h, taskId, 'FAILED');
    const lastError = failed.lastError?.message ?? '';
    expect(lastError).toBe(
      `broker bus: unroutable: exchange "${exchange}" routed key ${HOSTILE} to no queue`,
    );

    await page.goto(`${base}/console/tasks/${encodeURIComponent(taskId)}`);
    await expect(page.locator('#task-status').textContent()).resolves.toBe('FAILED');
    await expect(row('Target').textContent()).resolves.toBe(
      `rabbitmq broker bus → exchange ${exchange}, routing key ${HOSTILE}`,
    );
    await expect(row('Last error').textContent()).resolves.toBe(lastError);
    await expect(page.locator('img').count()).resolves.toBe(0);
    await page.screenshot({ path: '.data/console-broker-task.png', fullPage: true });
    // The dead letters' list shows the same error in its row.
    await page.goto(`${base}/console/tasks?status=FAILED&taskType=${encodeURIComponent(taskType)}`);
    await expect(page.locator(`tr[data-task-id="${taskId}"] td.last-error`).textContent()).resolves.toBe(
      lastError,
    );
    await expect(page.locator('img').count()).resolves.toBe(0);
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    expect(violations).toEqual([]);
  });
});
