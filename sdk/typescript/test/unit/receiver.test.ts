import { createServer } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import express from 'express';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { callbackMiddleware } from '../../src/express.js';
import { callbackPlugin } from '../../src/fastify.js';
import {
  createNodeHandler,
  createReceiver,
  PermanentError,
  RetryableError,
  type Callback,
  type CallbackHandler,
} from '../../src/index.js';
import { NOW, SECRET, signedRequest } from './signed-request.js';

const base = { secrets: [SECRET], now: () => NOW * 1000 };

describe('createReceiver maps outcomes to statuses', () => {
  it.each<{ name: string; handler: CallbackHandler; status: number; retryAfter?: string }>([
    { name: 'handler returns', handler: () => undefined, status: 200 },
    { name: 'RetryableError', handler: () => Promise.reject(new RetryableError('busy')), status: 503 },
    {
      name: 'RetryableError with retry-after',
      handler: () => {
        throw new RetryableError('busy', 2.5);
      },
      status: 503,
      retryAfter: '3',
    },
    {
      name: 'PermanentError',
      handler: () => {
        throw new PermanentError('bad order');
      },
      status: 422,
    },
    {
      name: 'unexpected error',
      handler: () => {
        throw new TypeError('bug');
      },
      status: 500,
    },
  ])('$name -> $status', async ({ handler, status, retryAfter }) => {
    const receive = createReceiver({ ...base, handlers: { 'order.close': handler } });
    const { headers, body } = signedRequest();
    const response = await receive(headers, body);
    expect(response.status).toBe(status);
    expect(response.headers['retry-after']).toBe(retryAfter);
  });

  it.each([
    { name: 'unknown task type', request: signedRequest({ taskType: 'other.type' }), status: 422 },
    {
      name: 'bad signature',
      request: { ...signedRequest(), body: signedRequest().body.replace('"1"', '"2"') },
      status: 401,
    },
    { name: 'signed body that is not a callback', request: signedRequest({ attempt: 'first' }), status: 400 },
  ])('$name -> $status without running a handler', async ({ request, status }) => {
    const seen: Callback[] = [];
    const receive = createReceiver({ ...base, handlers: { 'order.close': (cb) => void seen.push(cb) } });
    expect((await receive(request.headers, request.body)).status).toBe(status);
    expect(seen).toEqual([]);
  });

  it('records a webhook-id only after the handler succeeded', async () => {
    let calls = 0;
    const receive = createReceiver({
      ...base,
      handlers: {
        'order.close': () => {
          calls++;
          if (calls === 1) throw new RetryableError('not yet');
        },
      },
    });
    const { headers, body } = signedRequest();
    expect((await receive(headers, body)).status).toBe(503);
    expect((await receive(headers, body)).status).toBe(200);
    expect(await receive(headers, body)).toMatchObject({ status: 200, body: { status: 'duplicate' } });
    expect(calls).toBe(2);
  });

  it('refuses to build without secrets unless unsigned callbacks are allowed', async () => {
    expect(() => createReceiver({ handlers: { 'order.close': () => undefined } })).toThrow(
      /secrets are required/,
    );
    const receive = createReceiver({ allowUnsigned: true, handlers: { 'order.close': () => undefined } });
    const { body } = signedRequest();
    expect((await receive({}, body)).status).toBe(200);
  });
});

describe('adapters', () => {
  it('node:http handler verifies the raw bytes of a real request', async () => {
    const seen: Callback[] = [];
    const server = createServer(
      createNodeHandler({ ...base, handlers: { 'order.close': (cb) => void seen.push(cb) } }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/cb`;
    try {
      const { headers, body } = signedRequest();
      const ok = await fetch(url, { method: 'POST', headers, body });
      expect(ok.status).toBe(200);
      const forged = await fetch(url, { method: 'POST', headers, body: body.replace('"1"', '"9"') });
      expect(forged.status).toBe(401);
      expect(seen.map((cb) => cb.payload)).toEqual([{ orderId: '1' }]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('node:http handler survives a request that breaks off mid-body', async () => {
    const server = createServer(createNodeHandler({ ...base, handlers: { 'order.close': () => undefined } }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const socket = connect(port, '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write(
        'POST /cb HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"ta',
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
      socket.destroy();
      await new Promise((resolve) => setTimeout(resolve, 50));
      // Still serving (an unhandled rejection would also fail this test run).
      const { headers, body } = signedRequest();
      const ok = await fetch(`http://127.0.0.1:${port}/cb`, { method: 'POST', headers, body });
      expect([ok.status, await ok.json()]).toEqual([200, { status: 'handled' }]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('Fastify plugin answers on its path, keeps the app parser elsewhere', async () => {
    const seen: Callback[] = [];
    const app = Fastify();
    await app.register(callbackPlugin, {
      ...base,
      path: '/hooks/tasks',
      handlers: { 'order.close': (cb) => void seen.push(cb) },
    });
    app.post('/echo', async (request) => request.body);
    const { headers, body } = signedRequest({ payload: { big: 1 } });
    const response = await app.inject({ method: 'POST', url: '/hooks/tasks', headers, payload: body });
    expect(response.statusCode).toBe(200);
    const forged = await app.inject({
      method: 'POST',
      url: '/hooks/tasks',
      headers,
      payload: body.replace('"big":1', '"big":2'),
    });
    expect(forged.statusCode).toBe(401);
    const echo = await app.inject({ method: 'POST', url: '/echo', payload: { a: 1 } });
    expect(echo.json()).toEqual({ a: 1 });
    expect(seen.map((cb) => cb.payload)).toEqual([{ big: 1 }]);
    await app.close();
  });

  it('Express middleware reads the raw bytes, or takes them from express.raw(), and leaves other routes alone', async () => {
    const seen: Callback[] = [];
    const app = express();
    const receive = callbackMiddleware({ ...base, handlers: { 'order.close': (cb) => void seen.push(cb) } });
    app.post('/hooks/tasks', receive);
    app.post('/hooks/raw', express.raw({ type: 'application/json' }), receive);
    app.use('/hooks/parsed', express.json(), receive);
    app.use((error: Error, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
      res.status(500).json({ configuration: error.name });
    });
    const server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      // Each its own task (webhook-id), or the second one would be a duplicate.
      const post = (path: string, id: string, tamper = (text: string) => text) => {
        const { headers, body } = signedRequest({}, id);
        return fetch(url + path, { method: 'POST', headers, body: tamper(body) });
      };
      for (const [path, key] of [
        ['/hooks/tasks', 'msg_k1'],
        ['/hooks/raw', 'msg_k2'],
      ] as const) {
        const ok = await post(path, key);
        expect([ok.status, await ok.json()]).toEqual([200, { status: 'handled' }]);
      }
      const forged = await post('/hooks/tasks', 'msg_k3', (body) => body.replace('"1"', '"9"'));
      expect([forged.status, await forged.json()]).toEqual([
        401,
        { status: 'refused', reason: 'no_matching_signature' },
      ]);
      // A JSON parser in front consumed the bytes: a configuration error, never a false 401.
      const parsed = await post('/hooks/parsed', 'msg_k4');
      expect([parsed.status, await parsed.json()]).toEqual([
        500,
        { configuration: 'RawBodyUnavailableError' },
      ]);
      // Other methods go on to the next route.
      expect((await fetch(`${url}/hooks/parsed`)).status).toBe(404);
      expect(seen).toHaveLength(2);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
