/**
 * The Temporal Web UI reads and acts on encrypted tasks through the API's codec endpoint, in a real
 * browser (Chromium): the task's input decoded, a `status` query run from the Queries tab, and a
 * `cancel` signal sent from "More Actions". Every codec call the page makes must succeed. (The UI
 * 2.42 sends `{"payloads": []}` for no arguments, so the `{}` refusal that broke the CLI never
 * reached it; this guards the browser's path: CORS, decode, encode.)
 */
import { existsSync } from 'node:fs';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { mintPayloadKey } from '../../src/security/payload-codec.js';
import { ALL_SEARCH_ATTRIBUTES } from '../../src/shared/constants.js';
import { dynamicConfigArgs } from '../../src/temporal/dev-server.js';
import { Harness, quietRuntime } from '../helpers/harness.js';
import { freePort } from '../helpers/processes.js';
import { uniqueId, waitForStatus } from '../helpers/tasks.js';

const CHROMIUM = '/usr/bin/chromium';
const MARKER = `marker-${uniqueId('ui')}`;

let server: TestWorkflowEnvironment;
let h: Harness;
let browser: Browser;
let ui: string;
/** Status of every codec call the browser made. */
const codecAnswers: number[] = [];

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  quietRuntime();
  const [apiPort, uiPort] = await Promise.all([freePort(), freePort()]);
  ui = `http://127.0.0.1:${uiPort}`;
  server = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: inject('temporalCliPath') },
      ip: '127.0.0.1',
      ui: true,
      uiPort,
      searchAttributes: ALL_SEARCH_ATTRIBUTES,
      extraArgs: [
        ...dynamicConfigArgs(),
        '--ui-codec-endpoint',
        `http://127.0.0.1:${apiPort}/codec`,
        '--log-level',
        'error',
      ],
    },
  });
  h = await Harness.start({
    server: { address: server.address, workflowBundlePath: inject('workflowBundlePath') },
    // As scripts/dev.sh runs it: encrypted at rest, the codec open to loopback and the UI's origin.
    env: {
      PAYLOAD_ENCRYPTION_KEYS: `k1:${mintPayloadKey()}`,
      PAYLOAD_ENCRYPTION_CURRENT_KEY_ID: 'k1',
      CODEC_CORS_ORIGINS: ui,
    },
  });
  await h.app.listen({ host: '127.0.0.1', port: apiPort });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await h?.stop();
  await server?.teardown().catch(() => undefined);
});

async function openTask(taskId: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  page.on('response', (response) => {
    if (/\/codec\/(encode|decode)$/.test(new URL(response.url()).pathname))
      codecAnswers.push(response.status());
  });
  await page.goto(`${ui}/namespaces/default/workflows/${taskId}`, { waitUntil: 'domcontentloaded' });
  return page;
}

async function scheduledTask(): Promise<string> {
  const taskId = uniqueId('web-ui');
  const created = await h.create({
    taskType: 'ui.codec',
    taskId,
    payload: { note: MARKER },
    delaySeconds: 3600,
    callbackUrl: h.receiver.url,
  });
  expect(created.status).toBe(201);
  return taskId;
}

describe('the Temporal Web UI through the codec endpoint', () => {
  it('shows the decoded input and runs the status query', async () => {
    const taskId = await scheduledTask();
    const page = await openTask(taskId);
    try {
      await page.getByText(MARKER).first().waitFor({ timeout: 30_000 });
      await page.locator('a[href$="/query"]').first().click();
      await page.getByRole('button', { name: 'Run Query' }).click();
      // The answer panel shows the decoded TaskState: its status and the payload.
      await page.getByText('"SCHEDULED"').first().waitFor({ timeout: 30_000 });
      expect(await page.content()).toContain(MARKER);
      expect(codecAnswers.length).toBeGreaterThan(0);
      expect(codecAnswers.filter((status) => status !== 200)).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('sends the cancel signal from More Actions, and the task ends CANCELLED', async () => {
    const taskId = await scheduledTask();
    const page = await openTask(taskId);
    try {
      await page.getByText(MARKER).first().waitFor({ timeout: 30_000 });
      await page.getByRole('button', { name: 'More Actions' }).click();
      await page.getByRole('menuitem', { name: 'Send a Signal' }).click();
      await page.locator('[data-testid="signal-select-button"]:visible').click();
      await page.getByRole('option', { name: 'cancel', exact: true }).click();
      await page.locator('[data-testid="confirm-modal-button"]:visible').click();
      await waitForStatus(h, taskId, 'CANCELLED');
      expect(h.receiver.callsFor(taskId)).toHaveLength(0);
      expect(codecAnswers.filter((status) => status !== 200)).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
