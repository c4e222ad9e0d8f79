/**
 * What the API logs of a request never carries a credential: a key sent in the query string
 * (`?api_key=dts_...`, which some clients do) is logged without the query string, as callback URLs are.
 */
import type { Connection } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildApp } from '../../src/api/app.js';
import { ApiMetrics } from '../../src/api/metrics.js';
import { TaskService } from '../../src/api/task-service.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/observability/logger.js';
import { Policies } from '../../src/policies.js';
import { apiConnection } from '../../src/temporal/connection.js';

const SECRET = 'dts_k1_c2VjcmV0LXRoYXQtbXVzdC1uZXZlci1iZS1sb2dnZWQ';
const lines: string[] = [];
let app: FastifyInstance;
let connection: Connection;

beforeAll(async () => {
  const config = loadConfig({ TEMPORAL_ADDRESS: '127.0.0.1:1', TEMPORAL_RPC_TIMEOUT_MS: '300' });
  connection = apiConnection(config.temporal);
  // The API's own logger (src/observability/logger.ts), writing into `lines`.
  const logger = createLogger('info', 'api', { write: (line: string) => lines.push(line) });
  const tasks = new TaskService({ connection, config, policies: new Policies() });
  const metrics = new ApiMetrics({ readCounts: async () => ({ byStatus: {}, oldestOverdueSeconds: 0 }) });
  app = await buildApp({ config, tasks, metrics, logger });
  await app.ready();
});
afterAll(async () => {
  await app?.close();
  await connection?.close().catch(() => undefined);
});

it.each(['/healthz', '/api/v1/tasks/t-1', '/no-such-route'])(
  'logs %s?api_key=... without the key',
  async (path) => {
    lines.length = 0;
    await app.inject({ method: 'GET', url: `${path}?api_key=${SECRET}&x=1` });
    const text = lines.join('');
    expect(text).toContain(path);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain('c2VjcmV0');
  },
);
