/**
 * What one load of the console's overview costs with a large store: `npx tsx bench/console-cost.ts
 * [--tasks 100000]`. Starts a dev server on a SQLite file of its own, starts the tasks with the
 * direct client exactly as the API does (with a start delay, so no worker is needed and nothing
 * fires), due across the next 24 hours so that every forecast bucket holds tasks (the charts'
 * dearest case), then times the charts' counts (`ChartCounts`, no cache) and the whole overview page
 * through the app, several times each, and prints the count queries spent and the milliseconds.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { buildApp } from '../src/api/app.js';
import { ApiMetrics } from '../src/api/metrics.js';
import { loadConfig } from '../src/config/environment.js';
import { ChartCounts } from '../src/console/charts/data.js';
import { consoleRoutes } from '../src/console/plugin.js';
import { Policies } from '../src/task-types/policies.js';
import { TaskService } from '../src/tasks/service.js';
import { DEV_SERVER_SQLITE_PRAGMAS } from '../src/temporal/dev-server.js';
import { Child } from './infra/child.js';
import { startPending } from './infra/pending-task.js';
import { TemporalDevServer, temporalCli } from './infra/temporal-server.js';
import { waitUntil } from './infra/wait.js';
import { routeNewTask } from '../src/shared/task-queues.js';

const { values: flags } = parseArgs({
  options: { tasks: { type: 'string', default: '100000' }, rounds: { type: 'string', default: '5' } },
});
const root = resolve(import.meta.dirname, '..');
const tasks = Number(flags.tasks);
const rounds = Number(flags.rounds);
const dir = mkdtempSync(join(tmpdir(), 'console-cost-'));
const DAY = 86_400_000;

const stats = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return `min ${sorted[0]!.toFixed(0)} · median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(0)} · max ${sorted.at(-1)!.toFixed(0)} ms`;
};

async function main(): Promise<void> {
  process.on('exit', () => Child.killAll());
  const server = await TemporalDevServer.start(temporalCli(root), {
    name: 'console-cost',
    dir,
    pragmas: DEV_SERVER_SQLITE_PRAGMAS,
    dynamicConfig: [],
  });
  const taskQueue = 'console-cost';
  const policies = new Policies({});
  const { workflowTaskQueue } = routeNewTask(taskQueue, policies.forType('bench.console')!);
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection });
  const started = Date.now();
  const now = Date.now();
  for (let i = 0; i < tasks; i += 100) {
    await Promise.all(
      Array.from({ length: Math.min(100, tasks - i) }, (_, j) => {
        const n = i + j;
        return startPending(
          client,
          taskQueue,
          policies,
          {
            taskId: `t-${n}`,
            owner: n % 10 === 0 ? 'billing' : 'orders',
            taskType: `bench.console.${n % 5}`,
            payload: { orderId: `order-${n}` },
            // Spread over the next 24 hours (and a minute on): every forecast bucket holds tasks.
            executeAt: now + 60_000 + Math.floor((n / tasks) * DAY),
          },
          { now, startDelay: true },
        );
      }),
    );
  }
  await waitUntil(
    async () => (await client.workflow.count(`TaskQueue = '${workflowTaskQueue}'`)).count >= tasks,
    {
      timeoutMs: 300_000,
      intervalMs: 1000,
      what: 'every task in visibility',
    },
  );
  console.log(`${tasks} tasks started in ${((Date.now() - started) / 1000).toFixed(0)} s`);

  const config = loadConfig({
    TEMPORAL_ADDRESS: server.address,
    TASK_QUEUE: taskQueue,
    CONSOLE_ENABLED: 'true',
    WEBHOOK_SECRET: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  });
  const service = new TaskService({ connection, config, policies });
  for (const [label, scope] of [
    ['every owner, every type', {}],
    ['one owner (orders)', { owner: 'orders' }],
    ['one type (bench.console.1)', { taskType: 'bench.console.1' }],
  ] as const) {
    const times: number[] = [];
    let queries = 0;
    for (let r = 0; r < rounds; r++) {
      const charts = new ChartCounts(service.visibility, { ttlMs: 0 });
      const at = performance.now();
      const data = await charts.load(scope);
      times.push(performance.now() - at);
      queries = data.queries;
    }
    console.log(`charts, ${label}: ${queries} count queries; ${stats(times)}`);
  }
  // A new app per round: its charts' cache is empty, as on the first load of each 15 s.
  const newApp = async () => {
    const app = await buildApp({
      config,
      tasks: service,
      metrics: new ApiMetrics({ readCounts: async () => ({ byStatus: {}, oldestOverdueSeconds: 0 }) }),
    });
    await app.register(consoleRoutes, { config, tasks: service, keys: undefined });
    await app.ready();
    return app;
  };
  const load = async (app: Awaited<ReturnType<typeof newApp>>) => {
    const at = performance.now();
    const response = await app.inject({ url: '/console' });
    if (response.statusCode !== 200) throw new Error(`overview answered ${response.statusCode}`);
    return performance.now() - at;
  };
  const fresh: number[] = [];
  const cached: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const app = await newApp();
    fresh.push(await load(app));
    cached.push(await load(app));
    await app.close();
  }
  console.log(`overview page, charts counted (the first load of each 15 s): ${stats(fresh)}`);
  console.log(
    `overview page, charts from the 15 s cache (cards and the 500-task table only): ${stats(cached)}`,
  );
  await connection.close();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
