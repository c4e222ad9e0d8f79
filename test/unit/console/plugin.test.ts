/**
 * The console's guards, asked from the attacker's side on the in-process app with an unreachable
 * Temporal (everything here is refused before Temporal is called, so a guard that breaks shows as a
 * 503 or a 200 instead of the refusal): scopes at login and on every page, CSRF on every form, and
 * the failed-login limit per address.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KeyStore } from '../../../src/auth/key-store.js';
import { runKeysCommand } from '../../../src/cli/keys.js';
import { SESSION_COOKIE } from '../../../src/console/plugin.js';
import { SessionSigner } from '../../../src/console/session.js';
import { ConsoleClient } from '../../helpers/console.js';
import type { Minted } from '../../helpers/harness.js';
import { offlineApp, type OfflineApp } from '../../helpers/offline-app.js';

const SESSION_SECRET = 'console-guards-secret-0123456789abcdef';
let offline: OfflineApp;
let app: FastifyInstance;
let keyStore: KeyStore;
let keys: Record<string, Minted>;
let keysFile: string;

beforeAll(async () => {
  offline = await offlineApp({
    env: { CONSOLE_ENABLED: 'true', CONSOLE_SESSION_SECRET: SESSION_SECRET },
    keys: {
      writer: { owner: 'orders', scopes: ['tasks:write'] },
      codec: { owner: 'ops', scopes: ['codec'] },
      reader: { owner: 'orders', scopes: ['tasks:read'] },
      operator: { owner: 'orders', scopes: ['tasks:read', 'tasks:write'] },
    },
  });
  ({ app, keys } = offline);
  keyStore = offline.keyStore!;
  keysFile = offline.keysFile!;
});
afterAll(async () => {
  await offline?.close();
});

/** A session cookie for `name`'s key as the console would sign it (a key whose scopes changed since). */
function sessionOf(name: string): ConsoleClient {
  const browser = new ConsoleClient(app);
  const entry = keyStore.current.entry(keys[name]!.keyId)!;
  const cookie = new SessionSigner([SESSION_SECRET]).sign(
    { keyId: entry.id, expiresAt: Date.now() + 600_000, sessionId: 'test-session', issuedAt: Date.now() },
    entry.hash,
  );
  browser.cookies.set(SESSION_COOKIE, cookie);
  return browser;
}

describe('console scopes', () => {
  it.each(['writer', 'codec'])(
    'refuses to log in a %s key (no tasks:read): 403, no session',
    async (name) => {
      const browser = new ConsoleClient(app);
      const login = await browser.login(keys[name]!.key);
      expect(login.status).toBe(403);
      expect(login.body).toContain('needs scope tasks:read');
      expect(browser.cookies.has(SESSION_COOKIE)).toBe(false);
    },
  );

  it('logs in a key with tasks:read (the control: the refusal above is about the scope)', async () => {
    const browser = new ConsoleClient(app);
    expect((await browser.login(keys.reader!.key)).status).toBe(303);
    expect(browser.cookies.has(SESSION_COOKIE)).toBe(true);
  });

  it.each(['/console', '/console/tasks', '/console/tasks/t-1', '/console/tasks/t-1/replay', '/console/bulk'])(
    'shows %s to no session of a key without tasks:read (403 before any task is read)',
    async (url) => {
      const page = await sessionOf('writer').get(url);
      expect(page.status).toBe(403);
      expect(page.body).toContain('lacks scope tasks:read');
    },
  );
});

describe('console CSRF', () => {
  it('refuses a form posted without its token before anything is done (403, not the 503 of an action)', async () => {
    const browser = new ConsoleClient(app);
    expect((await browser.login(keys.operator!.key)).status).toBe(303);
    const forged = await browser.post('/console/tasks/t-1/cancel', { reason: 'forged' }, { csrf: false });
    expect(forged.status).toBe(403);
    // With the token the same form reaches the action, which needs Temporal (unreachable here).
    await browser.get('/console/tasks');
    const genuine = await browser.post('/console/tasks/t-1/cancel', { reason: 'genuine' });
    expect(genuine.status).toBe(503);
  });
});

describe('console sessions end on the server', () => {
  it('a copy of the cookie is refused after logout', async () => {
    const browser = new ConsoleClient(app);
    expect((await browser.login(keys.reader!.key)).status).toBe(303);
    const copy = new ConsoleClient(app);
    for (const [name, value] of browser.cookies) copy.cookies.set(name, value);
    expect((await copy.get('/console/tasks/t-1/replay')).status).not.toBe(303);
    await browser.get('/console/tasks');
    expect((await browser.post('/console/logout', {})).status).toBe(303);
    const after = await copy.get('/console/tasks');
    expect(after.status).toBe(303);
    expect(after.location).toBe('/console/login');
  });

  it('disabling and re-enabling a key revives none of its old sessions', async () => {
    const browser = new ConsoleClient(app);
    expect((await browser.login(keys.operator!.key)).status).toBe(303);
    expect((await browser.get('/console/tasks/t-1/replay')).status).not.toBe(303);
    runKeysCommand(['disable', keys.operator!.keyId], keysFile, new Date());
    runKeysCommand(['enable', keys.operator!.keyId], keysFile, new Date());
    keyStore.reload('test');
    expect((await browser.get('/console/tasks')).location).toBe('/console/login');
    // A fresh login works again: the key itself is enabled.
    expect((await new ConsoleClient(app).login(keys.operator!.key)).status).toBe(303);
  });
});

describe('failed logins per address', () => {
  it('after 30 failures a minute the next guess gets 429, never a valid key', async () => {
    const attacker = new ConsoleClient(app, '10.9.0.1');
    for (let i = 0; i < 30; i++) expect((await attacker.login(`dts_guess${i}_nope`)).status).toBe(401);
    const over = await attacker.login('dts_guess30_nope');
    expect(over.status).toBe(429);
    expect(over.headers['retry-after']).toBeDefined();
    expect(attacker.cookies.has(SESSION_COOKIE)).toBe(false);
    // Only failures are limited: a valid key from the same address still logs in.
    expect((await attacker.login(keys.reader!.key)).status).toBe(303);
    expect(attacker.cookies.has(SESSION_COOKIE)).toBe(true);
  });

  it('counts guessed API keys too: 429 for the right key from that address', async () => {
    const call = (key: string, remoteAddress: string) =>
      app.inject({
        method: 'GET',
        url: '/api/v1/tasks/t-1',
        headers: { authorization: `Bearer ${key}` },
        remoteAddress,
      });
    for (let i = 0; i < 30; i++) expect((await call(`dts_guess${i}_nope`, '10.9.1.1')).statusCode).toBe(401);
    expect((await call('dts_guess30_nope', '10.9.1.1')).statusCode).toBe(429);
    // Not held back: a valid key from there reaches the route (503: Temporal is unreachable here).
    expect((await call(keys.reader!.key, '10.9.1.1')).statusCode).toBe(503);
  });

  it('counts an IPv6 /64 as one client', async () => {
    const call = (key: string, remoteAddress: string) =>
      app.inject({
        method: 'GET',
        url: '/api/v1/tasks/t-1',
        headers: { authorization: `Bearer ${key}` },
        remoteAddress,
      });
    for (let i = 0; i < 30; i++)
      expect((await call(`dts_v6guess${i}_nope`, `2001:db8:7:1::${i.toString(16)}`)).statusCode).toBe(401);
    expect((await call('dts_v6guess30_nope', '2001:db8:7:1:ffff::1')).statusCode).toBe(429);
    expect((await call('dts_v6guess31_nope', '2001:db8:7:2::1')).statusCode).toBe(401);
  });
});

describe('behind proxies (TRUST_PROXY) and against a spread guess (the global ceiling)', () => {
  /** Another API process over the same keys with `env` added; closed by the caller. */
  const appWith = async (env: Record<string, string>) => offlineApp({ env, sharing: offline });
  const guess = (target: OfflineApp, key: string, remoteAddress: string, forwardedFor?: string) =>
    target.app.inject({
      method: 'GET',
      url: '/api/v1/tasks/t-1',
      headers: { authorization: `Bearer ${key}`, ...(forwardedFor && { 'x-forwarded-for': forwardedFor }) },
      remoteAddress,
    });

  it('behind a trusted proxy, one client locking itself out locks out no other client', async () => {
    const proxied = await appWith({ TRUST_PROXY: '10.0.0.0/8' });
    try {
      for (let i = 0; i < 31; i++) await guess(proxied, `dts_p${i}_nope`, '10.0.0.5', '203.0.113.7');
      expect((await guess(proxied, 'dts_p31_nope', '10.0.0.5', '203.0.113.7')).statusCode).toBe(429);
      expect((await guess(proxied, 'dts_other_nope', '10.0.0.5', '203.0.113.8')).statusCode).toBe(401);
      expect((await guess(proxied, keys.reader!.key, '10.0.0.5', '203.0.113.7')).statusCode).toBe(503);
    } finally {
      await proxied.close();
    }
  });

  it('an untrusted peer cannot pick its client address with X-Forwarded-For', async () => {
    const direct = await appWith({ TRUST_PROXY: '10.0.0.0/8' });
    try {
      for (let i = 0; i < 30; i++) await guess(direct, `dts_s${i}_nope`, '198.51.100.9', `192.0.2.${i}`);
      expect((await guess(direct, 'dts_s30_nope', '198.51.100.9', '192.0.2.200')).statusCode).toBe(429);
    } finally {
      await direct.close();
    }
  });

  it('guesses spread over many addresses hit the global ceiling; valid keys still pass', async () => {
    const ceiling = await appWith({ AUTH_FAILURES_PER_MINUTE_GLOBAL: '40' });
    try {
      const answers: number[] = [];
      for (let i = 0; i < 45; i++)
        answers.push((await guess(ceiling, `dts_g${i}_nope`, `192.0.2.${i + 1}`)).statusCode);
      expect(answers.slice(0, 40).every((status) => status === 401)).toBe(true);
      expect(answers.slice(40).every((status) => status === 429)).toBe(true);
      expect((await guess(ceiling, keys.reader!.key, '192.0.2.250')).statusCode).toBe(503);
    } finally {
      await ceiling.close();
    }
  });

  it("marks the console's cookie Secure when a trusted proxy says https, and sends HSTS when asked", async () => {
    const tls = await appWith({
      TRUST_PROXY: '10.0.0.0/8',
      CONSOLE_ENABLED: 'true',
      CONSOLE_SESSION_SECRET: SESSION_SECRET,
      HSTS_MAX_AGE_SECONDS: '31536000',
    });
    try {
      const login = async (remoteAddress: string) => {
        const page = await tls.app.inject({
          method: 'GET',
          url: '/console/login',
          remoteAddress,
          headers: { 'x-forwarded-proto': 'https' },
        });
        const csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)![1]!;
        const cookie = String(([] as unknown[]).concat(page.headers['set-cookie'])[0]).split(';')[0]!;
        return tls.app.inject({
          method: 'POST',
          url: '/console/login',
          remoteAddress,
          headers: {
            'x-forwarded-proto': 'https',
            cookie,
            'content-type': 'application/x-www-form-urlencoded',
          },
          payload: new URLSearchParams({ key: keys.reader!.key, _csrf: csrf }).toString(),
        });
      };
      const viaProxy = await login('10.0.0.5');
      const session = ([] as unknown[])
        .concat(viaProxy.headers['set-cookie'])
        .map(String)
        .find((l) => l.startsWith(SESSION_COOKIE));
      expect(session).toMatch(/;\s*Secure/i);
      expect(viaProxy.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
      // The same header from an untrusted peer is not believed: no Secure, no HSTS over plain http.
      const spoofed = await login('198.51.100.9');
      const plain = ([] as unknown[])
        .concat(spoofed.headers['set-cookie'])
        .map(String)
        .find((l) => l.startsWith(SESSION_COOKIE));
      expect(plain).toBeDefined();
      expect(plain).not.toMatch(/;\s*Secure/i);
      expect(spoofed.headers['strict-transport-security']).toBeUndefined();
    } finally {
      await tls.close();
    }
  });
});
