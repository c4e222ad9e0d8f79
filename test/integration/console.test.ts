/**
 * The operator console over `app.inject`, against the real dev server: headers (CSP, cookies),
 * login, escaping of task values, CSRF refusal and read-only refusal, each checked on the server's
 * side too (the task did not change).
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServer } from '../helpers/server.js';
import { ApiMetrics } from '../../src/api/metrics.js';
import { SESSION_COOKIE } from '../../src/console/plugin.js';
import { SessionSigner } from '../../src/console/session.js';
import { ConsoleClient } from '../helpers/console.js';
import { Harness } from '../helpers/harness.js';
import { uniqueId } from '../helpers/tasks.js';

const HOSTILE = '<img src=x onerror=alert(1)>';
const SESSION_SECRET = 'console-test-secret-0123456789abcdef';

let h: Harness;
beforeAll(async () => {
  h = await Harness.start({
    captureLogs: true,
    env: {
      CONSOLE_ENABLED: 'true',
      TEMPORAL_UI_URL: 'http://127.0.0.1:8233',
      CONSOLE_SESSION_SECRET: SESSION_SECRET,
    },
    keys: {
      reader: { owner: 'orders', scopes: ['tasks:read'] },
      orders: { owner: 'orders', scopes: ['tasks:read', 'tasks:write'] },
    },
  });
});
afterAll(async () => {
  await h?.stop();
});

/** A SCHEDULED task of owner `orders`, due in an hour, with hostile text in its payload. */
async function scheduledTask(): Promise<string> {
  const taskId = uniqueId('console');
  const created = await h.call('POST', '/api/v1/tasks', {
    key: h.keys.orders!.key,
    payload: {
      taskId,
      taskType: h.taskType('console'),
      payload: { note: HOSTILE },
      delaySeconds: 3600,
      callbackUrl: h.receiver.url,
    },
  });
  expect(created.status).toBe(201);
  return taskId;
}

async function statusOf(taskId: string): Promise<string> {
  const { body } = await h.call('GET', `/api/v1/tasks/${taskId}`, { key: h.keys.orders!.key });
  return body.status as string;
}

describe('console', () => {
  it('sends a browser to the login page and sets no session before a valid key', async () => {
    const browser = new ConsoleClient(h.app);
    const first = await browser.get('/console');
    expect(first.status).toBe(303);
    expect(first.location).toBe('/console/login');
    const refused = await browser.login('dts_nope_nope');
    expect(refused.status).toBe(401);
    expect(browser.cookies.has(SESSION_COOKIE)).toBe(false);
  });

  it('counts refused logins against the address: after 30 a minute the next guess gets 429 and no session, a valid key still logs in', async () => {
    const attacker = new ConsoleClient(h.app, '10.0.4.1');
    for (let i = 0; i < 30; i++) expect((await attacker.login(`dts_guess${i}_nope`)).status).toBe(401);
    expect((await attacker.login('dts_guess30_nope')).status).toBe(429);
    expect(attacker.cookies.has(SESSION_COOKIE)).toBe(false);
    expect((await attacker.login(h.keys.orders!.key)).status).toBe(303);
    const elsewhere = new ConsoleClient(h.app, '10.0.4.2');
    expect((await elsewhere.login(h.keys.orders!.key)).status).toBe(303);
  });

  it('serves pages with a strict CSP and an HttpOnly SameSite=Strict session cookie', async () => {
    const browser = new ConsoleClient(h.app);
    const login = await browser.login(h.keys.orders!.key);
    expect(login.status).toBe(303);
    const setCookie = ([] as unknown[]).concat(login.headers['set-cookie']).map(String);
    const session = setCookie.find((line) => line.startsWith(`${SESSION_COOKIE}=`));
    expect(session).toMatch(/HttpOnly/i);
    expect(session).toMatch(/SameSite=Strict/i);
    expect(session).not.toContain(h.keys.orders!.key);
    const overview = await browser.get('/console');
    expect(overview.status).toBe(200);
    const csp = String(overview.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(overview.body).not.toMatch(/<script>|<script [^>]*>[^<]|\sstyle="|\son\w+="/);
    expect(overview.headers['x-frame-options']).toBeDefined();
  });

  it('renders hostile task values as text', async () => {
    const taskId = await scheduledTask();
    const browser = new ConsoleClient(h.app);
    await browser.login(h.keys.orders!.key);
    const page = await browser.get(`/console/tasks/${taskId}`);
    expect(page.status).toBe(200);
    expect(page.body).not.toContain(HOSTILE);
    expect(page.body).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(page.body).toContain(`http://127.0.0.1:8233/namespaces/default/workflows/orders%2F${taskId}`);
  });

  it('refuses a POST without the CSRF token and leaves the task alone', async () => {
    const taskId = await scheduledTask();
    const browser = new ConsoleClient(h.app);
    await browser.login(h.keys.orders!.key);
    await browser.get(`/console/tasks/${taskId}`);
    const forged = await browser.post(
      `/console/tasks/${taskId}/cancel`,
      { reason: 'forged' },
      { csrf: false },
    );
    expect(forged.status).toBe(403);
    const wrong = await browser.post(
      `/console/tasks/${taskId}/cancel`,
      { reason: 'forged', _csrf: 'x'.repeat(40) },
      { csrf: false },
    );
    expect(wrong.status).toBe(403);
    expect(await statusOf(taskId)).toBe('SCHEDULED');
    // The same form with its token works, and the audit line names who, what, which task and why.
    const cancelled = await browser.post(`/console/tasks/${taskId}/cancel`, { reason: 'customer asked' });
    expect(cancelled.status).toBe(303);
    expect(await statusOf(taskId)).toBe('CANCELLED');
    const line = h.logLines
      .map((l) => l.audit as Record<string, unknown> | undefined)
      .find((a) => a?.action === 'console.cancel' && a.taskId === taskId);
    expect(line).toMatchObject({
      keyId: h.keys.orders!.keyId,
      owner: 'orders',
      reason: 'customer asked',
      outcome: 'ok',
    });
  });

  it('shows a read-only key no action and refuses its forged POST', async () => {
    const taskId = await scheduledTask();
    const browser = new ConsoleClient(h.app);
    await browser.login(h.keys.reader!.key);
    const page = await browser.get(`/console/tasks/${taskId}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain('data-role="read-only"');
    expect(page.body).not.toContain('/cancel"');
    expect(page.body).not.toContain('<button type="submit">Cancel');
    const forged = await browser.post(`/console/tasks/${taskId}/cancel`, { reason: 'sneaky' });
    expect(forged.status).toBe(403);
    expect(forged.body).toContain('PERMISSION_DENIED');
    expect(await statusOf(taskId)).toBe('SCHEDULED');
  });

  it('a session made by one API process works on another with the same secret, not with another', async () => {
    /** Another API process of the same deployment: same Temporal, same keys, its own session secrets. */
    const anotherProcess = (secrets: string[]): Promise<FastifyInstance> =>
      buildServer({
        config: { ...h.config, console: { ...h.config.console, sessionSecrets: secrets } },
        tasks: h.tasks,
        metrics: new ApiMetrics({ readCounts: async () => ({ byStatus: {}, oldestOverdueSeconds: 0 }) }),
        keys: h.keyStore,
      });
    const [same, other, rotated] = await Promise.all([
      anotherProcess([SESSION_SECRET]),
      anotherProcess(['another-secret-0123456789abcdefghij']),
      anotherProcess(['the-next-secret-0123456789abcdefghij', SESSION_SECRET]),
    ]);
    try {
      const browser = new ConsoleClient(h.app);
      expect((await browser.login(h.keys.orders!.key)).status).toBe(303);
      const taskId = await scheduledTask();
      const moved = new ConsoleClient(same);
      for (const [name, value] of browser.cookies) moved.cookies.set(name, value);
      const page = await moved.get(`/console/tasks/${taskId}`);
      expect(page.status).toBe(200);
      expect(page.body).toContain(`key ${h.keys.orders!.keyId}`);
      // A state-changing POST on the other process too: the CSRF token is the browser's, not the process's.
      expect((await moved.post(`/console/tasks/${taskId}/cancel`, { reason: 'moved' })).status).toBe(303);
      expect(await statusOf(taskId)).toBe('CANCELLED');

      const rotatedIn = new ConsoleClient(rotated);
      for (const [name, value] of browser.cookies) rotatedIn.cookies.set(name, value);
      expect((await rotatedIn.get('/console/tasks')).status).toBe(200);

      const stranger = new ConsoleClient(other);
      for (const [name, value] of browser.cookies) stranger.cookies.set(name, value);
      const refused = await stranger.get('/console/tasks');
      expect(refused.status).toBe(303);
      expect(refused.location).toBe('/console/login');
    } finally {
      await Promise.all([same.close(), other.close(), rotated.close()]);
    }
  });

  it('refuses an expired session, though signed with the right secret', async () => {
    const key = h.keys.orders!;
    const hash = h.keyStore!.current.entry(key.keyId)!.hash;
    const signer = new SessionSigner([SESSION_SECRET]);
    const browser = new ConsoleClient(h.app);
    browser.cookies.set(
      SESSION_COOKIE,
      signer.sign(
        { keyId: key.keyId, expiresAt: Date.now() - 1, sessionId: 'test-session', issuedAt: Date.now() },
        hash,
      ),
    );
    const expired = await browser.get('/console/tasks');
    expect(expired.status).toBe(303);
    expect(expired.location).toBe('/console/login');
    // The same cookie, unexpired: the refusal above was the expiry alone.
    browser.cookies.set(
      SESSION_COOKIE,
      signer.sign(
        { keyId: key.keyId, expiresAt: Date.now() + 60_000, sessionId: 'test-session', issuedAt: Date.now() },
        hash,
      ),
    );
    expect((await browser.get('/console/tasks')).status).toBe(200);
  });

  it('refuses a session cookie that is not one it gave out', async () => {
    const browser = new ConsoleClient(h.app);
    browser.cookies.set(SESSION_COOKIE, 'made-up');
    const page = await browser.get('/console/tasks');
    expect(page.status).toBe(303);
    expect(page.location).toBe('/console/login');
  });
});
