/** What the vectors cannot show: network failures, timeouts, the injected fetch, the version. */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { DelayedTaskError, DelayedTasksClient, SDK_VERSION } from '../../src/index.js';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers) server.closeAllConnections();
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A loopback server whose n-th connection (from 1) gets `behaviour(n)`. */
async function serve(
  behaviour: (attempt: number, socket: Socket) => void,
): Promise<{ url: string; attempts: () => number }> {
  let attempts = 0;
  const server = createServer({ keepAlive: false });
  server.on('request', (req, res: { socket: Socket | null }) => {
    attempts++;
    req.resume();
    behaviour(attempts, res.socket as Socket);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, attempts: () => attempts };
}

const fastRetries = { baseDelayMs: 0, maxDelayMs: 0 };

describe('DelayedTasksClient transport', () => {
  it('retries a dropped connection and then reports UNAVAILABLE with status 0', async () => {
    const server = await serve((_, socket) => socket.destroy());
    const client = new DelayedTasksClient({ baseUrl: server.url, retry: fastRetries });
    const error = await client.status('t-1').catch((err: unknown) => err);
    expect(error).toBeInstanceOf(DelayedTaskError);
    expect(error).toMatchObject({ code: 'UNAVAILABLE', status: 0 });
    expect(server.attempts()).toBe(4);
  });

  it('retries a timed-out attempt and succeeds on the next', async () => {
    const server = await serve((attempt, socket) => {
      if (attempt === 1) return; // never answers: the attempt times out
      socket.end(
        'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}',
      );
    });
    const client = new DelayedTasksClient({ baseUrl: server.url, timeoutMs: 300, retry: fastRetries });
    await expect(client.status('t-1')).resolves.toEqual({});
    expect(server.attempts()).toBe(2);
  });

  it('a long poll outlives the client timeout: lease waits its waitSeconds plus 10 s per attempt', async () => {
    const leased =
      'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 13\r\nconnection: close\r\n\r\n{"leases":[]}';
    const server = await serve((_, socket) => void setTimeout(() => socket.end(leased), 600));
    const client = new DelayedTasksClient({
      baseUrl: server.url,
      timeoutMs: 200,
      retry: { ...fastRetries, maxRetries: 0 },
    });
    await expect(client.lease({ queues: ['q'], waitSeconds: 0 })).resolves.toEqual([]);
    expect(server.attempts()).toBe(1);
  });

  it('an aborted lease ends at once and is not retried', async () => {
    const server = await serve(() => undefined); // never answers
    const client = new DelayedTasksClient({ baseUrl: server.url, retry: fastRetries });
    const abort = new AbortController();
    const leasing = client.lease({ queues: ['q'] }, { signal: abort.signal });
    while (server.attempts() === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    abort.abort(new Error('shutting down'));
    await expect(leasing).rejects.toThrow('shutting down');
    expect(server.attempts()).toBe(1);
  });

  it('uses the injected fetch, the base URL without its trailing slash, and the user agent', async () => {
    const seen: Array<{ url: string; headers: Headers }> = [];
    const fetchSpy: typeof fetch = async (input, init) => {
      seen.push({ url: String(input), headers: new Headers(init?.headers) });
      return new Response(JSON.stringify({ tasks: [], nextPageToken: null }), { status: 200 });
    };
    const client = new DelayedTasksClient({
      baseUrl: 'http://svc.test/',
      fetch: fetchSpy,
      userAgent: 'orders/2',
    });
    await client.list({ taskType: 'order.close' });
    expect(seen[0]?.url).toBe('http://svc.test/api/v1/tasks?taskType=order.close');
    expect(seen[0]?.headers.get('user-agent')).toBe(`orders/2 delayed-tasks-typescript/${SDK_VERSION}`);
    expect(seen[0]?.headers.get('authorization')).toBeNull();
  });

  it('sends a string executeAt with its offset as given', async () => {
    let body = '';
    const fetchSpy: typeof fetch = async (_input, init) => {
      body = String(init?.body);
      return new Response('{}', { status: 201 });
    };
    const client = new DelayedTasksClient({ baseUrl: 'http://svc.test', fetch: fetchSpy });
    const { created } = await client.create({
      taskType: 't',
      taskId: 'a',
      payload: {},
      executeAt: '2026-12-03T18:30:00+08:00',
    });
    expect(created).toBe(true);
    expect(JSON.parse(body)).toEqual({
      taskType: 't',
      taskId: 'a',
      payload: {},
      executeAt: '2026-12-03T18:30:00+08:00',
    });
  });

  it('sends the due range of a list as UTC with milliseconds, from a Date or a string with an offset', async () => {
    const urls: string[] = [];
    const fetchSpy: typeof fetch = async (input) => {
      urls.push(String(input));
      return new Response(JSON.stringify({ tasks: [], nextPageToken: null }), { status: 200 });
    };
    const client = new DelayedTasksClient({ baseUrl: 'http://svc.test', fetch: fetchSpy });
    await client.list({ dueAfter: '2026-12-03T18:30:00+08:00', dueBefore: new Date(Date.UTC(2026, 11, 4)) });
    expect(Object.fromEntries(new URL(urls[0] ?? '').searchParams)).toEqual({
      dueAfter: '2026-12-03T10:30:00.000Z',
      dueBefore: '2026-12-04T00:00:00.000Z',
    });
    const error = await client.list({ dueBefore: '2026-12-03T18:30:00' }).catch((err: unknown) => err);
    expect(error).toMatchObject({
      code: 'INVALID_ARGUMENT',
      status: 0,
      message: 'dueBefore must be an RFC 3339 time with an offset (Z or +08:00)',
    });
    expect(urls).toHaveLength(1);
  });

  it('parses the times of a task and of its attempt history into Dates', async () => {
    const wire = {
      taskId: 't-1',
      executeAt: '2026-12-03T10:30:00.000Z',
      firedAt: null,
      attemptHistory: [
        {
          attempt: 1,
          startedAt: '2026-12-03T10:30:00.005Z',
          finishedAt: '2026-12-03T10:30:00.120Z',
          outcome: 'SUCCEEDED',
          statusCode: 200,
        },
      ],
    };
    const fetchSpy: typeof fetch = async () => new Response(JSON.stringify(wire), { status: 200 });
    const task = await new DelayedTasksClient({ baseUrl: 'http://svc.test', fetch: fetchSpy }).status('t-1');
    expect(task.executeAt).toEqual(new Date('2026-12-03T10:30:00.000Z'));
    expect(task.firedAt).toBeNull();
    expect(task.attemptHistory?.[0]).toEqual({
      attempt: 1,
      startedAt: new Date('2026-12-03T10:30:00.005Z'),
      finishedAt: new Date('2026-12-03T10:30:00.120Z'),
      outcome: 'SUCCEEDED',
      statusCode: 200,
    });
  });

  it('retries a batch after a dropped connection with the same generated task ids', async () => {
    const bodies: string[] = [];
    const fetchSpy: typeof fetch = async (_input, init) => {
      bodies.push(String(init?.body));
      if (bodies.length === 1) throw new TypeError('fetch failed');
      return new Response(JSON.stringify({ results: [{ index: 0, status: 201, task: { taskId: 'x' } }] }), {
        status: 200,
      });
    };
    const client = new DelayedTasksClient({
      baseUrl: 'http://svc.test',
      fetch: fetchSpy,
      retry: fastRetries,
    });
    const [item] = await client.createTasks([{ taskType: 't', payload: {}, delaySeconds: 1 }]);
    expect(bodies).toHaveLength(2);
    expect(bodies[1]).toBe(bodies[0]);
    const sentId = (JSON.parse(bodies[0] ?? '{}') as { tasks: Array<{ taskId: string }> }).tasks[0]?.taskId;
    expect(item).toMatchObject({ index: 0, taskId: sentId, created: true });
  });

  it('gives an item the response left out an UNKNOWN error instead of dropping it', async () => {
    const fetchSpy: typeof fetch = async () =>
      new Response(
        JSON.stringify({ results: [{ index: 1, status: 409, error: { code: 'TASK_CONFLICT' } }] }),
        {
          status: 200,
          headers: { 'x-request-id': 'r-1' },
        },
      );
    const client = new DelayedTasksClient({ baseUrl: 'http://svc.test', fetch: fetchSpy });
    const input = { taskType: 't', payload: {}, delaySeconds: 1 };
    const results = await client.createTasks([
      { ...input, taskId: 'a' },
      { ...input, taskId: 'b' },
    ]);
    expect(results.map((r) => [r.taskId, r.error?.code, r.error?.status, r.error?.requestId])).toEqual([
      ['a', 'UNKNOWN', 200, 'r-1'],
      ['b', 'TASK_CONFLICT', 409, 'r-1'],
    ]);
  });

  it('keeps SDK_VERSION equal to package.json', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    expect(SDK_VERSION).toBe(pkg.version);
  });
});
