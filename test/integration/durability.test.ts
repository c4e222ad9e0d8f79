/**
 * Faults lose nothing: a worker stopped while tasks sleep fires them once when a worker is back;
 * a Temporal that is down, or that accepts connections and never answers, gives a 503 within the
 * API's deadline, never a hang.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServer } from '../helpers/server.js';
import { ApiMetrics } from '../../src/api/metrics.js';
import { TaskService } from '../../src/tasks/service.js';
import { loadConfig } from '../../src/config/environment.js';
import { Policies } from '../../src/task-types/policies.js';
import { apiConnection } from '../../src/temporal/connection.js';
import { Harness } from '../helpers/harness.js';
import { TEST_ENV } from '../helpers/test-env.js';
import { waitForStatus } from '../helpers/tasks.js';
import { waitFor } from '../helpers/wait.js';

let h: Harness;
beforeAll(async () => {
  h = await Harness.start();
});
afterAll(async () => {
  await h?.stop();
});

describe('worker restarts', () => {
  it('tasks that came due while no worker ran fire once when one is back', async () => {
    const taskType = h.taskType('points.grant');
    const created = [];
    for (let i = 0; i < 5; i++) {
      created.push(
        (await h.create({ taskType, payload: { i }, delaySeconds: 1 + i * 0.2, callbackUrl: h.receiver.url }))
          .task,
      );
    }
    const ids = created.map((task) => task.taskId);
    await h.stopWorkers();
    // Every due time passes while no worker runs: nothing may arrive.
    const lastDue = Math.max(...created.map((task) => Date.parse(task.executeAt)));
    await waitFor(() => Date.now() > lastDue + 1000, { what: 'the due times to pass' });
    expect(ids.flatMap((id) => h.receiver.callsFor(id))).toHaveLength(0);

    await h.startWorkers();
    for (const id of ids) await h.receiver.waitForCalls(id, 1);
    for (const id of ids) {
      await waitForStatus(h, id, 'SUCCEEDED');
    }
    // Once each, even after the new worker replayed their histories.
    expect(ids.map((id) => h.receiver.callsFor(id).length)).toEqual([1, 1, 1, 1, 1]);
  });
});

/** The API's deadline for one Temporal call in these tests. */
const RPC_TIMEOUT_MS = 1000;
/**
 * Beyond the deadline and the lateness of a timer set at the same moment (the machine is shared): the
 * request's own work before its Temporal call starts (routing, validation), 250 ms at a load of 19.
 * Without a bound of its own, the SDK's retry backoff overran a 1 s deadline by 400 to 1100 ms.
 */
const SLACK_MS = 500;

/** How late a timer of `ms` fires: what the machine's load adds to any deadline right now. */
async function timerLateness(ms: number): Promise<number> {
  const started = Date.now();
  await new Promise((resolve) => setTimeout(resolve, ms));
  return Date.now() - started - ms;
}

describe('Temporal down or silent', () => {
  // Accepts TCP connections and never says a word: a hung frontend, or a proxy that black-holes.
  let silent: Server;
  const accepted = new Set<Socket>();
  beforeAll(async () => {
    silent = createServer((socket) => {
      accepted.add(socket);
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    for (const socket of accepted) socket.destroy();
    await new Promise((resolve) => silent?.close(resolve));
  });

  const servers = [
    { name: 'down (connection refused)', address: () => '127.0.0.1:1' },
    {
      name: 'silent (accepts, never answers)',
      address: () => `127.0.0.1:${(silent.address() as { port: number }).port}`,
    },
  ];

  it.each(servers)(
    'Temporal $name: every route answers 503 UNAVAILABLE within the deadline, /readyz 503, /healthz 200',
    async ({ name, address }) => {
      const config = loadConfig({
        TEMPORAL_ADDRESS: address(),
        TEMPORAL_RPC_TIMEOUT_MS: String(RPC_TIMEOUT_MS),
        LOG_LEVEL: 'silent',
        ...TEST_ENV,
      });
      const connection = apiConnection(config.temporal);
      const tasks = new TaskService({ connection, config, policies: new Policies() });
      const app = await buildServer({
        config,
        tasks,
        metrics: new ApiMetrics({ readCounts: async () => ({ byStatus: {}, oldestOverdueSeconds: 0 }) }),
      });
      const unavailable = {
        error: { code: 'UNAVAILABLE', message: 'Temporal is unreachable; retry later' },
      };
      const requests = [
        {
          method: 'POST' as const,
          url: '/api/v1/tasks',
          payload: { taskType: 'a.b', payload: {}, delaySeconds: 1, callbackUrl: 'http://127.0.0.1:9/' },
        },
        { method: 'GET' as const, url: '/api/v1/tasks/some-task' },
        { method: 'GET' as const, url: '/api/v1/tasks' },
        { method: 'POST' as const, url: '/api/v1/tasks/some-task/cancel' },
        { method: 'GET' as const, url: '/readyz' },
      ];
      try {
        // Compiling the routes' schemas takes seconds on a loaded machine: not part of what is measured.
        await app.ready();
        // At once: each request has its own deadline; the SDK's retry backoff of each is jittered, so
        // five of them overrun a deadline that only the gRPC layer enforces (1.4 to 2.1 s here).
        const [lateMs, answers] = await Promise.all([
          timerLateness(RPC_TIMEOUT_MS),
          Promise.all(
            requests.map(async (request) => {
              const started = Date.now();
              const response = await app.inject(request);
              return { request, response, took: Date.now() - started };
            }),
          ),
        ]);
        const bound = RPC_TIMEOUT_MS + lateMs + SLACK_MS;
        for (const { request, response, took } of answers) {
          console.log(
            `Temporal ${name}: ${request.method} ${request.url} -> ${response.statusCode} in ${took} ms`,
          );
        }
        for (const { request, response, took } of answers) {
          expect(response.statusCode, `${request.method} ${request.url}`).toBe(503);
          if (request.url !== '/readyz') expect(response.json()).toEqual(unavailable);
          expect(took, `${request.method} ${request.url} took ${took} ms`).toBeLessThan(bound);
        }
        expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
      } finally {
        await app.close();
        await connection.close().catch(() => undefined);
      }
    },
  );

  it('the silent server really was reached (the case above did not fail fast on a refused port)', () => {
    expect(accepted.size).toBeGreaterThan(0);
  });
});
