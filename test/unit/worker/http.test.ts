/**
 * The worker's HTTP face with METRICS_TOKEN, as the API's /metrics: refused without the token (and
 * with an API key in its place), and a refused scrape collects nothing; served with the token;
 * /healthz stays open. Asked over a real loopback socket.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintKey } from '../../../src/auth/keys.js';
import { loadConfig } from '../../../src/config/environment.js';
import { startWorkerHttp } from '../../../src/worker/http.js';

const TOKEN = 'metrics-token-for-tests-0123456789';
let worker: Server;
let url: string;
let scrapes = 0;

beforeAll(async () => {
  const config = loadConfig({ METRICS_TOKEN: TOKEN });
  worker = await startWorkerHttp({
    host: '127.0.0.1',
    port: 0,
    logger: pino({ level: 'silent' }),
    ready: async () => undefined,
    metrics: async () => {
      scrapes++;
      return 'delayed_tasks_finished_total 0\n';
    },
    metricsToken: config.metrics.token,
    timeouts: config.http,
  });
  url = `http://127.0.0.1:${(worker.address() as AddressInfo).port}`;
});
afterAll(() => {
  worker?.close();
});

describe("the worker's /metrics with METRICS_TOKEN", () => {
  it.each([
    { name: 'no header', authorization: undefined },
    { name: 'a wrong token', authorization: `Bearer ${TOKEN}x` },
    { name: 'a prefix of the token', authorization: `Bearer ${TOKEN.slice(0, -1)}` },
    { name: 'an API key', authorization: `Bearer ${mintKey().key}` },
  ])('refuses $name with 401 UNAUTHENTICATED and collects nothing', async ({ authorization }) => {
    const before = scrapes;
    const response = await fetch(`${url}/metrics`, { headers: authorization ? { authorization } : {} });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="delayed-task-service"');
    const text = await response.text();
    expect(JSON.parse(text)).toMatchObject({ error: { code: 'UNAUTHENTICATED' } });
    expect(text).not.toContain('delayed_tasks');
    expect(scrapes).toBe(before);
  });

  it('serves the metrics to the token and leaves /healthz open', async () => {
    const response = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('delayed_tasks_finished_total');
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
  });
});
