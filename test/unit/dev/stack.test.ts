/**
 * The local launcher's view of its stack: every port a second stack must move (the SDK metrics port
 * included), which of them another process holds, and readiness that ends "stopped", not "up", when
 * the launcher stops first (a child exited). Real sockets and HTTP servers on loopback.
 */
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { busyPorts, busyPortsMessage, stackPorts, waitForReady } from '../../../src/dev/stack.js';

const servers: { close(): void }[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

async function listen(server: Server | ReturnType<typeof createTcpServer>): Promise<number> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

describe('stackPorts', () => {
  it.each([
    {
      name: 'defaults, with a dev server',
      env: {},
      expected: {
        PORT: 3000,
        WORKER_PORT: 3001,
        WORKER_SDK_METRICS_PORT: 9464,
        TEMPORAL_PORT: 7233,
        TEMPORAL_UI_PORT: 8233,
      },
    },
    {
      name: 'a second stack',
      env: {
        PORT: '3100',
        WORKER_PORT: '3101',
        WORKER_SDK_METRICS_PORT: '9564',
        TEMPORAL_PORT: '7333',
        TEMPORAL_UI_PORT: '8333',
      },
      expected: {
        PORT: 3100,
        WORKER_PORT: 3101,
        WORKER_SDK_METRICS_PORT: 9564,
        TEMPORAL_PORT: 7333,
        TEMPORAL_UI_PORT: 8333,
      },
    },
    {
      name: 'an external server, the worker on any free port',
      env: { TEMPORAL_ADDRESS: 'temporal:7233', WORKER_PORT: '0' },
      expected: { PORT: 3000, WORKER_SDK_METRICS_PORT: 9464 },
    },
  ])('$name', ({ env, expected }) => {
    expect(Object.fromEntries(stackPorts(env).map((p) => [p.variable, p.port]))).toEqual(expected);
  });
});

describe('busyPorts', () => {
  it('names a port another process holds, with its variable, and not a free one', async () => {
    const taken = await listen(createTcpServer());
    const free = await listen(createTcpServer());
    servers.pop()!.close();
    await new Promise((resolve) => setTimeout(resolve, 0));
    const busy = await busyPorts(
      '127.0.0.1',
      stackPorts({
        TEMPORAL_ADDRESS: 'x',
        PORT: String(free),
        WORKER_PORT: '0',
        WORKER_SDK_METRICS_PORT: String(taken),
      }),
    );
    expect(busy.map((p) => p.variable)).toEqual(['WORKER_SDK_METRICS_PORT']);
    expect(busyPortsMessage(busy)).toContain(
      `${taken} (worker's SDK metrics exporter): set WORKER_SDK_METRICS_PORT`,
    );
  });
});

describe('waitForReady', () => {
  it('is true once the URL answers 2xx', async () => {
    let calls = 0;
    const port = await listen(createServer((_req, res) => res.writeHead(++calls < 3 ? 503 : 200).end()));
    await expect(waitForReady(`http://127.0.0.1:${port}/readyz`, () => false)).resolves.toBe(true);
    expect(calls).toBe(3);
  });

  it('is false, not ready, when the launcher stops first, even if the URL answers then', async () => {
    let stopping = false;
    // The answer that comes in while the launcher is stopping (the API still serving its last
    // requests) must not count as "up".
    const port = await listen(
      createServer((_req, res) => {
        stopping = true;
        res.writeHead(200).end();
      }),
    );
    await expect(waitForReady(`http://127.0.0.1:${port}/readyz`, () => stopping)).resolves.toBe(false);
  });

  it('is false while nothing answers and the launcher stops', async () => {
    let polls = 0;
    const stopped = () => ++polls > 4;
    const port = await listen(createServer((_req, res) => res.writeHead(503).end()));
    await expect(waitForReady(`http://127.0.0.1:${port}/readyz`, stopped)).resolves.toBe(false);
  });

  it('gives up after its timeout', async () => {
    const port = await listen(createServer((_req, res) => res.writeHead(503).end()));
    await expect(waitForReady(`http://127.0.0.1:${port}/readyz`, () => false, 300)).rejects.toThrow(
      'did not become ready',
    );
  });
});
