/**
 * /metrics of the API with METRICS_TOKEN: refused without the token (and with an API key in its
 * place), served with it. No Temporal needed: metrics read no counts here.
 */
import type { Connection } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiConnection } from '../../../../src/temporal/connection.js';
import { buildApp } from '../../../../src/api/app.js';
import { ApiMetrics } from '../../../../src/api/metrics.js';
import { TaskService } from '../../../../src/tasks/service.js';
import { mintKey } from '../../../../src/auth/keys.js';
import { loadConfig } from '../../../../src/config/environment.js';
import { Policies } from '../../../../src/task-types/policies.js';

const TOKEN = 'metrics-token-for-tests-0123456789';
let app: FastifyInstance;
let connection: Connection;

beforeAll(async () => {
  const config = loadConfig({ TEMPORAL_ADDRESS: '127.0.0.1:1', METRICS_TOKEN: TOKEN });
  connection = apiConnection(config.temporal);
  const tasks = new TaskService({ connection, config, policies: new Policies() });
  const metrics = new ApiMetrics({ readCounts: async () => ({ byStatus: {}, oldestOverdueSeconds: 0 }) });
  app = await buildApp({ config, tasks, metrics });
});
afterAll(async () => {
  await app?.close();
  await connection?.close().catch(() => undefined);
});

describe('/metrics with METRICS_TOKEN', () => {
  it.each([
    { name: 'no header', authorization: undefined },
    { name: 'a wrong token', authorization: `Bearer ${TOKEN}x` },
    { name: 'a prefix of the token', authorization: `Bearer ${TOKEN.slice(0, -1)}` },
    { name: 'an API key', authorization: `Bearer ${mintKey().key}` },
  ])('refuses $name with 401 UNAUTHENTICATED', async ({ authorization }) => {
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
