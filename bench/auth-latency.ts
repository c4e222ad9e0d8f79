/**
 * What authentication costs a request: two API servers in one process on one Temporal dev server,
 * one without keys and one with a keys file, both listening on loopback and driven over HTTP with
 * keep-alive, one request at a time, alternating between them so that both see the same machine.
 *
 *   npx tsx bench/auth-latency.ts [--requests 2000]
 *
 * Routes: GET /api/v1/tasks/{id} (the status query through a worker), GET /api/v1/tasks?pageSize=10
 * (a visibility query), GET /api/v1/tasks?pageSize=0 (refused by validation after authentication:
 * the HTTP stack and the auth hooks with no Temporal call). Prints p50/p95/p99 in ms.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { pino } from 'pino';
import { Agent, request } from 'undici';
import { buildApp } from '../src/api/app.js';
import { ApiMetrics } from '../src/api/metrics.js';
import { TaskService } from '../src/tasks/service.js';
import { KeyStore } from '../src/auth/key-store.js';
import { hashKey, mintKey } from '../src/auth/keys.js';
import { loadConfig } from '../src/config/environment.js';
import { Policies } from '../src/task-types/policies.js';
import { DEV_SERVER_SQLITE_PRAGMAS } from '../src/temporal/dev-server.js';
import { WorkerMetrics } from '../src/worker/metrics.js';
import { bundleTaskWorkflows, createTaskWorkers, runWorkers } from '../src/worker/workers.js';
import { temporalCli, TemporalDevServer } from './infra/temporal-server.js';
import { summarize } from './stats.js';

const { values } = parseArgs({ options: { requests: { type: 'string', default: '2000' } } });
const requests = Number(values.requests);
const root = fileURLToPath(new URL('..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'auth-latency-'));

console.log('starting a Temporal dev server...');
const server = await TemporalDevServer.start(temporalCli(root), {
  name: 'auth-latency',
  dir,
  pragmas: DEV_SERVER_SQLITE_PRAGMAS,
  dynamicConfig: [],
});

const { keyId, key } = mintKey();
const keysFile = join(dir, 'api-keys.json');
writeFileSync(
  keysFile,
  JSON.stringify({
    keys: [{ id: keyId, owner: 'default', hash: hashKey(key), scopes: ['tasks:read', 'tasks:write'] }],
  }),
);
const taskQueue = 'auth-latency';
const silent = pino({ level: 'silent' });
const connection = await Connection.connect({ address: server.address });
const policies = new Policies();

async function startApi(withKeys: boolean) {
  const config = loadConfig({
    TEMPORAL_ADDRESS: server.address,
    TASK_QUEUE: taskQueue,
    LOG_LEVEL: 'silent',
    // The limit is not what is measured: high enough never to refuse.
    RATE_LIMIT_PER_MINUTE: '10000000',
    ...(withKeys ? { API_KEYS_FILE: keysFile } : {}),
  });
  const tasks = new TaskService({ connection, config, policies });
  const metrics = new ApiMetrics({ readCounts: async () => ({ byStatus: {}, oldestOverdueSeconds: 0 }) });
  const keys = withKeys ? new KeyStore(keysFile, silent) : undefined;
  const app = await buildApp({ config, tasks, metrics, keys });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as { port: number };
  return {
    app,
    base: `http://127.0.0.1:${port}`,
    headers: withKeys ? { authorization: `Bearer ${key}` } : {},
  };
}

const native = await NativeConnection.connect({ address: server.address });
const workers = await createTaskWorkers({
  connection: native,
  namespace: 'default',
  taskQueue,
  policies,
  metrics: new WorkerMetrics(),
  workflowBundle: await bundleTaskWorkflows(),
});
const running = runWorkers(workers);
const off = await startApi(false);
const on = await startApi(true);

const agent = new Agent({ keepAliveTimeout: 30_000, connections: 2 });
async function timed(api: typeof off, path: string, expected: number): Promise<number> {
  const started = process.hrtime.bigint();
  const response = await request(`${api.base}${path}`, { dispatcher: agent, headers: api.headers });
  await response.body.dump();
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (response.statusCode !== expected)
    throw new Error(`${path} answered ${response.statusCode}, not ${expected}`);
  return ms;
}

// One task to look up (owner default: the same workflow for both servers).
const created = await request(`${off.base}/api/v1/tasks`, {
  method: 'POST',
  dispatcher: agent,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({
    taskType: 'bench.auth',
    taskId: 'auth-latency',
    payload: {},
    delaySeconds: 86_400,
    callbackUrl: 'http://127.0.0.1:9/',
  }),
});
if (created.statusCode !== 201)
  throw new Error(`create answered ${created.statusCode}: ${await created.body.text()}`);
await created.body.dump();

const routes = [
  { name: 'GET /api/v1/tasks/{id} (status query)', path: '/api/v1/tasks/auth-latency', expected: 200 },
  { name: 'GET /api/v1/tasks?pageSize=10 (visibility)', path: '/api/v1/tasks?pageSize=10', expected: 200 },
  {
    name: 'GET /api/v1/tasks?pageSize=0 (no Temporal call: 400)',
    path: '/api/v1/tasks?pageSize=0',
    expected: 400,
  },
];
const fmt = (ms: number) => ms.toFixed(2);
console.log(`\n${requests} requests per route and mode, one at a time, alternating auth off / on\n`);
console.log('| route | auth | p50 ms | p95 ms | p99 ms |');
console.log('| --- | --- | --- | --- | --- |');
for (const route of routes) {
  // Warm-up: connections, JIT, the workflow in the worker's cache.
  for (let i = 0; i < 100; i++) {
    await timed(off, route.path, route.expected);
    await timed(on, route.path, route.expected);
  }
  const samples = { off: [] as number[], on: [] as number[] };
  for (let i = 0; i < requests; i++) {
    // Alternate which goes first, so neither always follows the other.
    if (i % 2 === 0) {
      samples.off.push(await timed(off, route.path, route.expected));
      samples.on.push(await timed(on, route.path, route.expected));
    } else {
      samples.on.push(await timed(on, route.path, route.expected));
      samples.off.push(await timed(off, route.path, route.expected));
    }
  }
  for (const mode of ['off', 'on'] as const) {
    const s = summarize(samples[mode])!;
    console.log(`| ${route.name} | ${mode} | ${fmt(s.p50)} | ${fmt(s.p95)} | ${fmt(s.p99)} |`);
  }
}

await agent.close();
await off.app.close();
await on.app.close();
for (const worker of workers) worker.shutdown();
await running;
await native.close();
await connection.close();
await server.stop();
