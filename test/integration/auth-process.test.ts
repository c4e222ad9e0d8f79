/**
 * The real API process and its keys: it refuses to start off loopback without keys (and on a bad
 * keys file), warns that authentication is off on loopback, and reloads the keys file on change and
 * on SIGHUP, refusing a broken file while the keys in force keep working. No Temporal is needed:
 * an authenticated request with an invalid query answers 400, an unauthenticated one 401.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { mintKeys, writeKeysFile } from '../helpers/harness.js';
import { freePort, ServiceProcess } from '../helpers/processes.js';
import { waitFor } from '../helpers/wait.js';

const started: ServiceProcess[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((process) => process.stop()));
});

function startApi(env: Record<string, string>): ServiceProcess {
  const api = new ServiceProcess('api', 'src/api/main.ts', {
    TEMPORAL_ADDRESS: '127.0.0.1:1',
    LOG_LEVEL: 'info',
    API_KEYS_FILE: '',
    ...env,
  });
  started.push(api);
  return api;
}

/** 400 when the key is accepted (the query is invalid on purpose), 401 when it is not. */
async function probe(base: string, key: string): Promise<number> {
  const response = await fetch(`${base}/api/v1/tasks?pageSize=0`, {
    headers: { authorization: `Bearer ${key}` },
  });
  return response.status;
}

function keysPath(): string {
  return join(mkdtempSync(join(tmpdir(), 'delayed-task-keys-')), 'api-keys.json');
}

describe('secure by default', () => {
  it('refuses to start on a non-loopback address without API_KEYS_FILE, saying how to mint a key', async () => {
    // A TEST-NET address: if the refusal were missing, listening would fail differently.
    const api = startApi({ HOST: '192.0.2.1', PORT: String(await freePort()) });
    expect(await api.exitCode()).toBe(1);
    const fatal = api.lines.find((line) => line.level === 60);
    expect(fatal?.msg).toMatch(/^refusing to start: HOST=192\.0\.2\.1 is not a loopback address/);
    expect(fatal?.msg).toContain('npm run keys -- create');
    expect(fatal?.msg).toContain('API_KEYS_FILE');
    expect(api.lines.some((line) => line.msg === 'API started')).toBe(false);
  });

  it('refuses to start on a keys file with a bad field, naming it', async () => {
    const path = keysPath();
    const { file } = mintKeys({ a: { owner: 'orders', scopes: ['tasks:read'] } });
    writeKeysFile(path, { keys: [{ ...file.keys[0]!, scopes: ['tasks:everything' as 'admin'] }] });
    const api = startApi({ PORT: String(await freePort()), API_KEYS_FILE: path });
    expect(await api.exitCode()).toBe(1);
    expect(api.lines.find((line) => line.level === 60)?.msg).toContain('keys.0.scopes.0');
  });

  it('serves on loopback without keys, saying at start that authentication is off', async () => {
    const port = await freePort();
    const api = startApi({ HOST: '127.0.0.1', PORT: String(port) });
    await api.waitUntilHealthy(`http://127.0.0.1:${port}/healthz`);
    expect(api.lines).toContainEqual(
      expect.objectContaining({ level: 40, msg: expect.stringContaining('authentication is off') }),
    );
    expect(await probe(`http://127.0.0.1:${port}`, 'anything')).toBe(400);
  });
});

describe('metrics on a port of their own', () => {
  it('serves /metrics only on METRICS_PORT, behind METRICS_TOKEN when set', async () => {
    const [port, metricsPort] = [await freePort(), await freePort()];
    const token = 'a-metrics-token-of-some-length';
    const api = startApi({ PORT: String(port), METRICS_PORT: String(metricsPort), METRICS_TOKEN: token });
    await api.waitUntilHealthy(`http://127.0.0.1:${port}/healthz`);
    await api.waitForLine((line) => line.msg === 'metrics served on their own port', 'metrics listening');
    expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(404);
    const url = `http://127.0.0.1:${metricsPort}/metrics`;
    expect((await fetch(url)).status).toBe(401);
    const served = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    expect(served.status).toBe(200);
    expect(await served.text()).toContain('process_cpu_user_seconds_total');
    expect((await fetch(`http://127.0.0.1:${metricsPort}/healthz`)).status).toBe(404);
  });
});

describe('reloading the keys file', () => {
  it('takes a changed file within the watch interval; a broken file is refused and the old keys stay', async () => {
    const path = keysPath();
    const { file, minted } = mintKeys({
      first: { owner: 'orders', scopes: ['tasks:read'] },
      second: { owner: 'orders', scopes: ['tasks:read'] },
    });
    const [first, second] = [minted.first!, minted.second!];
    writeKeysFile(path, { keys: [first.entry] });
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const api = startApi({ PORT: String(port), API_KEYS_FILE: path, API_KEYS_WATCH_INTERVAL_MS: '100' });
    await api.waitUntilHealthy(`${base}/healthz`);
    expect(await probe(base, first.key)).toBe(400);
    expect(await probe(base, second.key)).toBe(401);

    writeKeysFile(path, file);
    await waitFor(async () => (await probe(base, second.key)) === 400, { what: 'the added key to work' });

    writeKeysFile(path, '{"keys": [ {"id": "half a file');
    await api.waitForLine((line) => line.msg === 'API keys file refused; the keys in force stay', 'refusal');
    expect(await probe(base, first.key)).toBe(400);
    expect(await probe(base, second.key)).toBe(400);

    // Valid JSON with a bad field: refused with its path, the old keys still in force.
    writeKeysFile(path, { keys: [{ ...first.entry, owner: 'Not An Owner' }] });
    const refused = await api.waitForLine(
      (line) => typeof line.error === 'string' && line.error.includes('keys.0.owner'),
      'refusal naming keys.0.owner',
    );
    expect(refused.keys).toBe(2);
    expect(await probe(base, second.key)).toBe(400);

    // Disabling the second key takes effect without a restart.
    writeKeysFile(path, { keys: [first.entry, { ...second.entry, disabled: true }] });
    await waitFor(async () => (await probe(base, second.key)) === 401, {
      what: 'the disabled key to be refused',
    });
    expect(await probe(base, first.key)).toBe(400);
  });

  it('re-reads the file on SIGHUP', async () => {
    const path = keysPath();
    const { file, minted } = mintKeys({
      first: { owner: 'orders', scopes: ['tasks:read'] },
      second: { owner: 'billing', scopes: ['tasks:read'] },
    });
    writeKeysFile(path, { keys: [minted.first!.entry] });
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    // Watching off: only the signal reloads.
    const api = startApi({ PORT: String(port), API_KEYS_FILE: path, API_KEYS_WATCH_INTERVAL_MS: '0' });
    await api.waitUntilHealthy(`${base}/healthz`);
    writeKeysFile(path, file);
    expect(await probe(base, minted.second!.key)).toBe(401);
    api.signal('SIGHUP');
    await api.waitForLine((line) => line.msg === 'API keys reloaded' && line.trigger === 'SIGHUP', 'reload');
    expect(await probe(base, minted.second!.key)).toBe(400);
    expect(await probe(base, minted.first!.key)).toBe(400);
  });
});
