/**
 * Store bytes per pending task, table by table: `npx tsx bench/store-size.ts [--tasks 1000]
 * [--pragma cache_size=-65536 ...]`. Starts a dev server on a SQLite file of its own and
 * a worker in this process, creates the tasks (due in 30 days) with the direct client exactly as the API
 * starts them, waits until every first workflow task is done, checkpoints the WAL and reads SQLite's
 * `dbstat` (the `sqlite3` CLI): bytes per task of each table and index, without the WAL's leftover size
 * that the `pending` scenario's file-size figure includes. Then completes and deletes nothing: closed
 * tasks' cost is measured by `--close` (every task cancelled, then the same reading), and delivered
 * tasks' by `--succeed` (tasks due 60 s ahead, each sleeping first, each calling back a receiver in this process once, then
 * the same reading of the SUCCEEDED tasks).
 */
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { DEV_SERVER_SQLITE_PRAGMAS } from '../src/temporal/dev-server.js';
import { Policies } from '../src/task-types/policies.js';
import { createTaskWorkers, runWorkers } from '../src/worker/workers.js';
import { CallbackGuard } from '../src/security/callback-guard.js';
import { WebhookSecrets } from '../src/security/webhook-secrets.js';
import { mintWebhookSecret } from '../src/security/webhook-signature.js';
import { TemporalDevServer, temporalCli } from './infra/temporal-server.js';
import { sleep, waitUntil } from './infra/wait.js';
import { Child } from './infra/child.js';
import { startPending } from './infra/pending-task.js';
import { routeNewTask } from '../src/shared/task-queues.js';

const { values: flags } = parseArgs({
  options: {
    tasks: { type: 'string', default: '1000' },
    pragma: { type: 'string', multiple: true },
    close: { type: 'boolean', default: false },
    succeed: { type: 'boolean', default: false },
  },
});

const root = resolve(import.meta.dirname, '..');
const tasks = Number(flags.tasks);
const dir = mkdtempSync(join(tmpdir(), 'store-size-'));
Runtime.install({ logger: new DefaultLogger('ERROR') });

function dbstat(dbPath: string): Record<string, number> {
  // A second connection may checkpoint a WAL database while the server holds it open.
  execFileSync('sqlite3', [dbPath, 'PRAGMA wal_checkpoint(TRUNCATE);'], { stdio: 'ignore' });
  const out = execFileSync(
    'sqlite3',
    [dbPath, '-separator', '\t', 'SELECT name, SUM(pgsize) FROM dbstat GROUP BY name;'],
    {
      encoding: 'utf8',
    },
  );
  return Object.fromEntries(
    out
      .trim()
      .split('\n')
      .map((line) => line.split('\t'))
      .map(([name, bytes]) => [name!, Number(bytes)]),
  );
}

function report(label: string, before: Record<string, number>, after: Record<string, number>): void {
  const rows = Object.keys(after)
    .map((name) => [name, (after[name]! - (before[name] ?? 0)) / tasks] as const)
    .filter(([, perTask]) => perTask >= 50)
    .sort((a, b) => b[1] - a[1]);
  const total = rows.reduce((sum, [, perTask]) => sum + perTask, 0);
  console.log(
    `\n${label}: ${Math.round(total)} bytes per task (pages of tables and indexes, WAL checkpointed)`,
  );
  for (const [name, perTask] of rows) console.log(`  ${name.padEnd(48)} ${Math.round(perTask)}`);
}

async function main(): Promise<void> {
  process.on('exit', () => Child.killAll());
  const server = await TemporalDevServer.start(temporalCli(root), {
    name: 'store-size',
    dir,
    pragmas: flags.pragma ?? DEV_SERVER_SQLITE_PRAGMAS,
    dynamicConfig: [],
  });
  const taskQueue = 'store-size';
  const policies = new Policies({});
  // The queues and shape the API gives a task of this type (v2: the type's queue, a local callback).
  const { workflowTaskQueue } = routeNewTask(taskQueue, policies.forType('bench.pending')!);
  // --succeed: a receiver answering 200, on loopback (allowed to the callbacks here).
  let delivered = 0;
  const receiver = createServer((req, res) => {
    req.resume().on('end', () => {
      delivered++;
      res.writeHead(200).end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const callbackUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/cb`;
  const native = await NativeConnection.connect({ address: server.address });
  const workers = await createTaskWorkers({
    connection: native,
    namespace: 'default',
    taskQueue,
    policies,
    callbackDeps: {
      guard: new CallbackGuard({ allowCidrs: ['127.0.0.0/8'] }),
      secrets: new WebhookSecrets({ defaultSecrets: [mintWebhookSecret()] }),
    },
  });
  const running = runWorkers(workers);
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection });
  const before = dbstat(server.dbPath);
  const now = Date.now();
  const ids: string[] = [];
  for (let i = 0; i < tasks; i += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, tasks - i) }, (_, j) => {
        const taskId = `pending-${i + j}`;
        ids.push(taskId);
        return startPending(
          client,
          taskQueue,
          policies,
          {
            taskId,
            owner: 'default',
            taskType: 'bench.pending',
            payload: { orderId: `order-${i + j}`, note: 'pending' },
            executeAt: flags.succeed ? now + 60_000 : now + 30 * 86_400_000,
            callbackUrl,
          },
          { now, startDelay: false },
        );
      }),
    );
  }
  // Every first workflow task done (a timer each), nothing left to dispatch.
  await waitUntil(
    async () => {
      const { count } = await client.workflow.count(`TaskQueue = '${workflowTaskQueue}'`);
      if (count < tasks) return false;
      const history = await client.workflow.getHandle(ids.at(-1)!).fetchHistory();
      return (history.events ?? []).some((event) => event.timerStartedEventAttributes);
    },
    { timeoutMs: 300_000, intervalMs: 1000, what: 'every task to be waiting' },
  );
  await sleep(3000);
  const pending = dbstat(server.dbPath);
  report(`${tasks} pending tasks`, before, pending);
  if (flags.succeed) {
    await waitUntil(
      async () =>
        (await client.workflow.count(`TaskQueue = '${workflowTaskQueue}' AND ExecutionStatus = 'Running'`))
          .count === 0,
      { timeoutMs: 300_000, intervalMs: 1000, what: 'every task to be delivered and closed' },
    );
    await sleep(3000);
    report(
      `the same ${tasks} tasks delivered (${delivered} callbacks) and SUCCEEDED, kept for the namespace's retention`,
      before,
      dbstat(server.dbPath),
    );
  }
  if (flags.close) {
    for (let i = 0; i < ids.length; i += 50)
      await Promise.all(ids.slice(i, i + 50).map((id) => client.workflow.getHandle(id).cancel()));
    await waitUntil(
      async () =>
        (await client.workflow.count(`TaskQueue = '${workflowTaskQueue}' AND ExecutionStatus = 'Running'`))
          .count === 0,
      { timeoutMs: 300_000, intervalMs: 1000, what: 'every task to be closed' },
    );
    await sleep(3000);
    report(
      `the same ${tasks} tasks closed (CANCELLED), kept for the namespace's retention`,
      before,
      dbstat(server.dbPath),
    );
  }
  for (const worker of workers) worker.shutdown();
  await running;
  await connection.close();
  await native.close();
  await server.stop();
  receiver.close();
  rmSync(dir, { recursive: true, force: true });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
