/**
 * The schedules' "midnight herd" (issue 32): `npx tsx bench/schedule-herd.ts [--schedules 1000]
 * [--jitter 30s]`. Starts a dev server on a SQLite file of its own and the worker from dist/ (as the
 * benchmark's `ours` system does), with a callback receiver in this process. Then, one after the
 * other, three herds of N, each due at one whole-minute boundary far enough ahead to create them all:
 * N one-shot tasks (`executeAt` the boundary), N schedules whose cron fires at that minute, and the
 * same N schedules with jitter. For each: fire lag (callback arrival − nominal time, first attempts),
 * and the CPU of the worker and of the Temporal server from the boundary to the last arrival, per
 * occurrence; and after each schedule herd, one read of the API's schedule gauges over the N schedules
 * (time and server CPU). The machine's load average is printed beside the numbers (the machine may be
 * shared).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { Connection } from '@temporalio/client';
import { ownerAccess } from '../src/auth/principal.js';
import { loadConfig } from '../src/config/environment.js';
import { SCHEDULE_TALLY_MAX } from '../src/api/metrics.js';
import { ApiError, ErrorCode } from '../src/errors/catalog.js';
import { ScheduleService } from '../src/schedules/service.js';
import { mintWebhookSecret } from '../src/security/webhook-signature.js';
import { Policies } from '../src/task-types/policies.js';
import { DEFAULT_OWNER } from '../src/shared/owner.js';
import { TaskService } from '../src/tasks/service.js';
import { DEV_SERVER_SQLITE_PRAGMAS } from '../src/temporal/dev-server.js';
import { buildIfStale } from './infra/build.js';
import { Child } from './infra/child.js';
import { CpuMeter } from './infra/cpu.js';
import { freePort } from './infra/ports.js';
import { TemporalDevServer, temporalCli } from './infra/temporal-server.js';
import { waitUntil } from './infra/wait.js';
import { summarize } from './stats.js';

const { values: flags } = parseArgs({
  options: {
    schedules: { type: 'string', default: '1000' },
    jitter: { type: 'string', default: '30s' },
    concurrency: { type: 'string', default: '16' },
    'wait-s': { type: 'string', default: '180' },
    /** The create rate the lead before the boundary is sized for (a pessimistic guess for the machine). */
    'create-rate': { type: 'string', default: '15' },
  },
});
const root = resolve(import.meta.dirname, '..');
const N = Number(flags.schedules);
const CONCURRENCY = Number(flags.concurrency);
const WAIT_S = Number(flags['wait-s']);
const OWNER = DEFAULT_OWNER;
const dir = mkdtempSync(join(tmpdir(), 'schedule-herd-'));

/** First-attempt callback arrivals by task id, ms since the epoch. */
const arrivals = new Map<string, number>();

/** `fn` of every item, CONCURRENCY at a time; a call Temporal did not answer in time is retried. */
async function inParallel<T>(items: readonly T[], fn: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  const retried = async (item: T, tries = 5): Promise<unknown> => {
    try {
      return await fn(item);
    } catch (err) {
      if (tries <= 1 || !(err instanceof ApiError) || err.code !== ErrorCode.Unavailable) throw err;
      await sleep(1000);
      return retried(item, tries - 1);
    }
  };
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < items.length) await retried(items[next++]!);
    }),
  );
}

/** The first whole minute at least `leadMs` from now. */
const boundaryAfter = (leadMs: number) => Math.ceil((Date.now() + leadMs) / 60_000) * 60_000;
const load = () =>
  loadavg()
    .map((n) => n.toFixed(1))
    .join(' / ');

async function main(): Promise<void> {
  process.on('exit', () => Child.killAll());
  if (buildIfStale(root)) console.log('src/ was newer than dist/: rebuilt');
  const server = await TemporalDevServer.start(temporalCli(root), {
    name: 'schedule-herd',
    dir,
    pragmas: DEV_SERVER_SQLITE_PRAGMAS,
    dynamicConfig: [],
  });
  const receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const at = Date.now();
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { taskId: string; attempt: number };
      if (body.attempt === 1 && !arrivals.has(body.taskId)) arrivals.set(body.taskId, at);
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((done) => receiver.listen(0, '127.0.0.1', done));
  const callbackUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/herd`;
  const env = {
    TEMPORAL_ADDRESS: server.address,
    TASK_QUEUE: 'schedule-herd',
    LOG_LEVEL: 'warn',
    CALLBACK_ALLOW_CIDRS: '127.0.0.0/8,::1/128',
    WEBHOOK_SECRET: mintWebhookSecret(),
    SCHEDULES_MAX_PER_OWNER: String(N + 10),
    // The machine may be shared: a slow answer is not the herd's failure.
    TEMPORAL_RPC_TIMEOUT_MS: '20000',
  };
  const workerPort = await freePort();
  const worker = Child.start({
    name: 'schedule-herd-worker',
    command: process.execPath,
    args: [join(root, 'dist/worker/main.js')],
    env: {
      ...process.env,
      ...env,
      WORKER_PORT: String(workerPort),
      WORKER_SDK_METRICS_PORT: String(await freePort()),
    },
    logPath: join(dir, 'worker.log'),
  });
  await waitUntil(async () => (await fetch(`http://127.0.0.1:${workerPort}/readyz`)).ok, {
    timeoutMs: 90_000,
    intervalMs: 250,
    what: 'worker /readyz',
    giveUp: () => (worker.isRunning ? undefined : `worker exited: ${worker.tail()}`),
  });
  const config = loadConfig(env);
  const connection = await Connection.connect({ address: server.address });
  const options = { connection, config, policies: new Policies({}) };
  const tasks = new TaskService(options);
  const schedules = new ScheduleService(options, tasks);
  const access = ownerAccess(OWNER);
  const processes = [
    { role: 'worker', pid: worker.pid, kind: 'service' as const },
    { role: 'temporal', pid: server.child.pid, kind: 'store' as const },
  ];
  console.log(`${N} per herd; load average (1/5/15 min) at start: ${load()}`);

  const herd = async (
    label: string,
    create: (i: number, boundary: number) => Promise<string>,
    extraWaitMs: number,
  ) => {
    arrivals.clear();
    // Lead: room to create N at a pessimistic rate on a loaded machine, plus margin.
    const boundary = boundaryAfter((N / Number(flags['create-rate'])) * 1000 + 10_000);
    const created = Date.now();
    const ids: string[] = [];
    await inParallel(
      Array.from({ length: N }, (_, i) => i),
      async (i) => ids.push(await create(i, boundary)),
    );
    const createdS = (Date.now() - created) / 1000;
    if (Date.now() >= boundary) throw new Error(`${label}: creating took past the boundary`);
    await sleep(boundary - Date.now());
    const cpu = new CpuMeter(processes);
    await waitUntil(async () => ids.every((id) => arrivals.has(id)), {
      timeoutMs: WAIT_S * 1000 + extraWaitMs,
      intervalMs: 100,
      what: `${label}: every callback`,
    }).catch(() => undefined);
    const last = Math.max(...ids.map((id) => arrivals.get(id) ?? 0));
    const cpuS = cpu.stop();
    const lags = ids.flatMap((id) => (arrivals.has(id) ? [arrivals.get(id)! - boundary] : []));
    const lag = summarize(lags);
    const perOccurrence = Object.entries(cpuS)
      .map(([role, s]) => `${role} ${((s * 1000) / Math.max(lags.length, 1)).toFixed(1)}`)
      .join(' · ');
    const s = (ms: number | undefined) => (ms === undefined ? '–' : (ms / 1000).toFixed(2));
    console.log(
      `| ${label} | ${lags.length}/${N} | ${s(lag?.p50)} | ${s(lag?.p99)} | ${s(lag?.max)} | ${perOccurrence} | ${((last - boundary) / 1000).toFixed(1)} | created in ${createdS.toFixed(0)} s | ${load()} |`,
    );
    return ids;
  };

  console.log(
    '| herd | delivered | fire lag p50 s | p99 s | max s | CPU ms per occurrence (from the boundary to the last arrival) | last after nominal s | | load average 1/5/15 |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  await herd(
    'one-shot tasks',
    async (i, boundary) => {
      const taskId = `herd-${boundary}-${i}`;
      await tasks.commands.create(access, {
        taskId,
        taskType: 'bench.herd',
        executeAt: new Date(boundary).toISOString(),
        callbackUrl,
        maxRetries: 3,
        payload: { i },
      });
      return taskId;
    },
    0,
  );
  /** One read of the API's schedule gauges (a describe of each schedule, at most SCHEDULE_TALLY_MAX). */
  const timedTally = async (existing: number) => {
    const cpu = new CpuMeter(processes.filter((ref) => ref.role === 'temporal'));
    const started = performance.now();
    const tally = await schedules.tally(SCHEDULE_TALLY_MAX);
    const seconds = (performance.now() - started) / 1000;
    const described = [...tally.byTaskType.values()].reduce((sum, type) => sum + type.schedules, 0);
    const serverMs = (cpu.stop().temporal ?? Number.NaN) * 1000;
    return `| ${existing} | ${described}${tally.truncated ? ' (truncated)' : ''} | ${seconds.toFixed(2)} | ${serverMs.toFixed(0)} | ${load()} |`;
  };
  const tallies: string[] = [];
  for (const jitter of [undefined, flags.jitter]) {
    const made: string[] = [];
    const ids = await herd(
      jitter ? `schedules, jitter ${jitter}` : 'schedules, no jitter',
      async (i, boundary) => {
        const at = new Date(boundary);
        const scheduleId = `herd-${jitter ?? 'none'}-${i}`;
        await schedules.create(access, {
          scheduleId,
          cron: `${at.getUTCMinutes()} ${at.getUTCHours()} * * *`,
          timeZone: 'UTC',
          ...(jitter && { jitter }),
          task: { taskType: 'bench.herd', callbackUrl, maxRetries: 3, payload: { i } },
        });
        made.push(scheduleId);
        // The occurrence's task id: `<scheduleId>-<nominal time>`.
        return `${scheduleId}-${at.toISOString().replace('.000Z', 'Z')}`;
      },
      jitter ? 120_000 : 0,
    );
    void ids;
    tallies.push(await timedTally(made.length));
    await inParallel(made, (scheduleId) => schedules.delete(access, scheduleId));
  }
  console.log("\nThe metrics' schedule gauges, one read (at most once a minute per API process):");
  console.log('| schedules | described | seconds | Temporal server CPU ms | load average 1/5/15 |');
  console.log('| --- | --- | --- | --- | --- |');
  for (const row of tallies) console.log(row);
  console.log(`load average at the end: ${load()}`);
  receiver.close();
  await connection.close();
  await worker.stop(30_000);
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
