/**
 * /metrics of the API and of the worker with METRICS_TOKEN: refused without the token (and with an
 * API key in its place), served with it. No Temporal needed: metrics read no counts here. The
 * worker's is asked over a real loopback socket, and a refused scrape collects nothing.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { pino } from 'pino';
import { startWorkerHttp } from '../../src/worker/http.js';
import type { Connection } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiConnection } from '../../src/temporal/connection.js';
import { buildApp } from '../../src/api/app.js';
import { ApiMetrics } from '../../src/api/metrics.js';
import { TaskService } from '../../src/tasks/service.js';
import { mintKey } from '../../src/auth/keys.js';
import { loadConfig } from '../../src/config.js';
import { Policies } from '../../src/policies.js';

const TOKEN = 'metrics-token-for-tests-0123456789';
let app: FastifyInstance;
let connection: Connection;
let worker: Server;
let workerUrl: string;
let scrapes = 0;

beforeAll(async () => {
  const config = loadConfig({ TEMPORAL_ADDRESS: '127.0.0.1:1', METRICS_TOKEN: TOKEN });
  connection = apiConnection(config.temporal);
  const tasks = new TaskService({ connection, config, policies: new Policies() });
  const metrics = new ApiMetrics({ readCounts: async () => ({ byStatus: {}, oldestOverdueSeconds: 0 }) });
  app = await buildApp({ config, tasks, metrics });
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
  workerUrl = `http://127.0.0.1:${(worker.address() as AddressInfo).port}`;
});
afterAll(async () => {
  worker?.close();
  await app?.close();
  await connection?.close().catch(() => undefined);
});

const refused = [
  { name: 'no header', authorization: undefined },
  { name: 'a wrong token', authorization: `Bearer ${TOKEN}x` },
  { name: 'a prefix of the token', authorization: `Bearer ${TOKEN.slice(0, -1)}` },
  { name: 'an API key', authorization: `Bearer ${mintKey().key}` },
];

describe('/metrics with METRICS_TOKEN', () => {
  it.each(refused)('refuses $name with 401 UNAUTHENTICATED', async ({ authorization }) => {
    const response = await app.inject({
      method: 'GET',
      url: '/metrics',
      headers: authorization ? { authorization } : {},
    });
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Bearer realm="delayed-task-service"');
    expect(response.json()).toMatchObject({ error: { code: 'UNAUTHENTICATED' } });
    expect(response.body).not.toContain('process_cpu');
  });

  it('serves the metrics to the token', async () => {
    const response = await app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(response.statusCode).toBe(200);
    expect(response.body).toContain('process_cpu_user_seconds_total');
  });

  it('leaves /healthz open', async () => {
    expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });
});

describe("the worker's /metrics with METRICS_TOKEN", () => {
  it.each(refused)(
    'refuses $name with 401 UNAUTHENTICATED and collects nothing',
    async ({ authorization }) => {
      const before = scrapes;
      const response = await fetch(`${workerUrl}/metrics`, {
        headers: authorization ? { authorization } : {},
      });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer realm="delayed-task-service"');
      const text = await response.text();
      expect(JSON.parse(text)).toMatchObject({ error: { code: 'UNAUTHENTICATED' } });
      expect(text).not.toContain('delayed_tasks');
      expect(scrapes).toBe(before);
    },
  );

  it('serves the metrics to the token and leaves /healthz open', async () => {
    const response = await fetch(`${workerUrl}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('delayed_tasks_finished_total');
    expect((await fetch(`${workerUrl}/healthz`)).status).toBe(200);
  });
});
