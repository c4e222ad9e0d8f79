/**
 * The worker's HTTP face with METRICS_TOKEN, as the API's /metrics: refused without the token (and
 * with an API key in its place), and a refused scrape collects nothing; served with the token;
 * /healthz stays open. Asked over a real loopback socket.
 */
import type { Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
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

describe("what Node refuses before the worker's handler", () => {
  it('answers in the envelope: 431 for headers over the limit, 408 for a drip, 400 for not HTTP', async () => {
    const config = loadConfig({ HTTP_HEADERS_TIMEOUT_MS: '400', HTTP_REQUEST_TIMEOUT_MS: '800' });
    const server = await startWorkerHttp({
      host: '127.0.0.1',
      port: 0,
      logger: pino({ level: 'silent' }),
      ready: async () => undefined,
      metrics: async () => '',
      timeouts: config.http,
    });
    const port = (server.address() as AddressInfo).port;
    try {
      const big = `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`;
      expect(await raw(port, big)).toMatchObject({
        status: 431,
        body: { error: { code: 'HEADERS_TOO_LARGE' } },
      });
      expect(await raw(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: abc')).toMatchObject({
        status: 408,
        body: { error: { code: 'REQUEST_TIMEOUT' } },
      });
      expect(await raw(port, 'HELLO\r\n\r\n')).toMatchObject({
        status: 400,
        body: { error: { code: 'INVALID_ARGUMENT' } },
      });
    } finally {
      server.close();
    }
  });
});

/** Sends `text` on a raw socket, never finishing it, and reads the answer until the server closes. */
function raw(port: number, text: string): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    socket.once('close', () => {
      const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(received)?.[1]);
      const start = received.indexOf('\r\n\r\n');
      if (!status || start === -1) return reject(new Error(`no answer: ${JSON.stringify(received)}`));
      resolve({ status, body: JSON.parse(received.slice(start + 4)) });
    });
    socket.write(text);
  });
}
