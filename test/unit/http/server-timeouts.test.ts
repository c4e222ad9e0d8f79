/**
 * Slow clients, from the attacker's side, on real loopback sockets against the API with short
 * configured timeouts: a client dripping its request's headers a byte at a time, one dripping after
 * its 401 on a kept-alive socket, one sending a body too slowly, and one idling after its answer are
 * all cut off within their timeout; a normal client, and one whose request arrives in a few quick
 * pieces, are served. Before, Node's defaults (headers 60 s, checked every 30 s; no request
 * timeout) held 1,500 such sockets open 90 s and more.
 */
import { connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config/environment.js';
import { offlineApp, type OfflineApp } from '../../helpers/offline-app.js';
import { waitFor } from '../../helpers/wait.js';

const TIMEOUTS = {
  HTTP_HEADERS_TIMEOUT_MS: '400',
  HTTP_REQUEST_TIMEOUT_MS: '800',
  HTTP_KEEP_ALIVE_TIMEOUT_MS: '400',
  HTTP_CONNECTION_TIMEOUT_MS: '5000',
};
/**
 * The longest any socket below may stay open: the longest timeout, its check interval, Node's 1 s
 * keep-alive buffer and slack for a loaded machine (Node's defaults would hold them 60 s and more).
 */
const CUT_OFF_WITHIN_MS = 4_000;
const DRIPPERS = 20;

let api: OfflineApp;
let port: number;

beforeAll(async () => {
  api = await offlineApp({ env: TIMEOUTS, keys: { reader: { owner: 'orders', scopes: ['tasks:read'] } } });
  await api.app.listen({ host: '127.0.0.1', port: 0 });
  port = (api.app.server.address() as AddressInfo).port;
});
afterAll(async () => {
  await api?.close();
});

/** A raw socket with what it received and a promise of its close (and when). */
function open(): Promise<{ socket: Socket; received: () => string; closed: Promise<number> }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString('latin1')));
    socket.on('error', () => undefined); // a reset is a close too
    const closed = new Promise<number>((done) => socket.once('close', () => done(Date.now())));
    socket.once('connect', () => resolve({ socket, received: () => text, closed }));
    socket.once('error', reject);
  });
}

/** Writes one byte of `text` every `everyMs` until the socket closes; returns the stopper. */
function drip(socket: Socket, text: string, everyMs: number): () => void {
  let i = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || socket.writableEnded) return clearInterval(timer);
    socket.write(text[i++ % text.length]!);
  }, everyMs);
  return () => clearInterval(timer);
}

/** Resolves with the socket's close time, or fails when it is still open after `withinMs`. */
async function closesWithin(closed: Promise<number>, withinMs: number): Promise<number> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`socket still open after ${withinMs} ms`)), withinMs);
  });
  try {
    return await Promise.race([closed, late]);
  } finally {
    clearTimeout(timer);
  }
}

const request = (path: string, extra = '') => `GET ${path} HTTP/1.1\r\nHost: x\r\n${extra}\r\n`;

describe('slow clients', () => {
  it(`${DRIPPERS} clients dripping their headers a byte every 100 ms are cut off`, async () => {
    const sockets = await Promise.all(Array.from({ length: DRIPPERS }, () => open()));
    const started = Date.now();
    const stops = sockets.map(({ socket }) => {
      socket.write('GET /api/v1/tasks HTTP/1.1\r\nHost: x\r\nX-Slow: ');
      return drip(socket, 'abcdefgh', 100);
    });
    try {
      const closedAt = await Promise.all(
        sockets.map(({ closed }) => closesWithin(closed, CUT_OFF_WITHIN_MS)),
      );
      expect(Math.max(...closedAt) - started).toBeLessThan(CUT_OFF_WITHIN_MS);
      // Cut off, not answered: nothing reached a route.
      for (const { received } of sockets) expect(received()).not.toContain('200 OK');
    } finally {
      for (const stop of stops) stop();
    }
  });

  it('a client answered 401 that then drips on its kept-alive socket is cut off', async () => {
    const { socket, received, closed } = await open();
    socket.write(request('/api/v1/tasks', 'Connection: keep-alive\r\n'));
    await waitForText(received, 'HTTP/1.1 401');
    const stop = drip(socket, 'GET /api/v1/tasks HTTP/1.1\r\nX: ', 100);
    try {
      await closesWithin(closed, CUT_OFF_WITHIN_MS);
    } finally {
      stop();
    }
  });

  it('a client sending its body a byte every 100 ms is cut off at the request timeout', async () => {
    const { socket, closed } = await open();
    socket.write(
      'POST /api/v1/tasks HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n',
    );
    const stop = drip(socket, '{"a":1}', 100);
    try {
      await closesWithin(closed, CUT_OFF_WITHIN_MS);
    } finally {
      stop();
    }
  });

  it('an idle kept-alive socket is closed after the keep-alive timeout', async () => {
    const { socket, received, closed } = await open();
    socket.write(request('/healthz'));
    await waitForText(received, '{"status":"ok"}');
    await closesWithin(closed, CUT_OFF_WITHIN_MS);
  });
});

/** The JSON body of a raw HTTP answer. */
function bodyOf(raw: string): unknown {
  return JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4));
}

describe("what Node refuses before a route answers in the API's envelope", () => {
  it('a request line or headers over the limit: 431 HEADERS_TOO_LARGE, and no route ran', async () => {
    for (const raw of [
      `GET /api/v1/tasks?${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
      request('/api/v1/tasks', `X-Big: ${'b'.repeat(20_000)}\r\n`),
    ]) {
      const { socket, received, closed } = await open();
      socket.write(raw);
      await closesWithin(closed, CUT_OFF_WITHIN_MS);
      expect(received()).toMatch(/^HTTP\/1\.1 431 /);
      expect(bodyOf(received())).toEqual({
        error: { code: 'HEADERS_TOO_LARGE', message: expect.any(String) },
      });
    }
  });

  it('a client dripping its headers past the timeout: 408 REQUEST_TIMEOUT', async () => {
    const { socket, received, closed } = await open();
    socket.write('GET /api/v1/tasks HTTP/1.1\r\nHost: x\r\nX-Slow: ');
    const stop = drip(socket, 'abcdefgh', 100);
    try {
      await closesWithin(closed, CUT_OFF_WITHIN_MS);
    } finally {
      stop();
    }
    expect(received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(bodyOf(received())).toEqual({ error: { code: 'REQUEST_TIMEOUT', message: expect.any(String) } });
  });

  it('bytes that are not HTTP: 400 INVALID_ARGUMENT', async () => {
    const { socket, received, closed } = await open();
    socket.write('HELLO\r\n\r\n');
    await closesWithin(closed, CUT_OFF_WITHIN_MS);
    expect(received()).toMatch(/^HTTP\/1\.1 400 /);
    expect(bodyOf(received())).toMatchObject({ error: { code: 'INVALID_ARGUMENT' } });
  });
});

describe('normal clients', () => {
  it('are served, also when a request arrives in a few quick pieces and a socket is reused', async () => {
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    const { socket, received } = await open();
    const whole = request('/healthz', 'Connection: keep-alive\r\n');
    for (const piece of [whole.slice(0, 10), whole.slice(10, 25), whole.slice(25)]) {
      socket.write(piece);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await waitForText(received, '{"status":"ok"}');
    socket.write(request('/healthz', 'Connection: close\r\n'));
    await waitFor(() => received().split('{"status":"ok"}').length === 3, {
      timeoutMs: 2_000,
      intervalMs: 10,
    });
    socket.destroy();
  });
});

describe('configuration', () => {
  it('has safe defaults and refuses a headers timeout longer than the request timeout', () => {
    expect(loadConfig({}).http).toMatchObject({
      requestTimeoutMs: 60_000,
      headersTimeoutMs: 10_000,
      keepAliveTimeoutMs: 5_000,
      connectionTimeoutMs: 60_000,
    });
    expect(() => loadConfig({ HTTP_HEADERS_TIMEOUT_MS: '20000', HTTP_REQUEST_TIMEOUT_MS: '10000' })).toThrow(
      ConfigError,
    );
  });

  it('reaches the server the API listens with', () => {
    const server = api.app.server;
    expect({
      headersTimeout: server.headersTimeout,
      requestTimeout: server.requestTimeout,
      keepAliveTimeout: server.keepAliveTimeout,
      timeout: server.timeout,
    }).toEqual({ headersTimeout: 400, requestTimeout: 800, keepAliveTimeout: 400, timeout: 5000 });
  });
});

function waitForText(received: () => string, text: string): Promise<boolean> {
  return waitFor(() => received().includes(text), { timeoutMs: 2_000, intervalMs: 10, what: text });
}
