/**
 * pending: many tasks waiting (due in 30 days): memory of the service processes as the count grows,
 * and the store's size per task (SQLite file(s) or Redis used_memory, before and after ÷ count).
 */
import { MemorySampler } from '../infra/memory.js';
import { withConcurrency } from '../load.js';
import type { SystemName } from '../systems/system.js';
import { round, runId, settle, type Scenario, type ScenarioContext, type SystemRow } from './scenario.js';

interface Checkpoint {
  pending: number;
  rssMiB: Record<string, number>;
  storeBytes: number | undefined;
}

/** Growth of `role`'s RSS over the second half of the checkpoints, MiB per 10,000 tasks. */
function slope(points: readonly Checkpoint[], role: string): number | null {
  const half = points.slice(Math.floor(points.length / 2));
  const first = half[0];
  const last = half[half.length - 1];
  if (!first || !last || last.pending === first.pending) return null;
  return round(
    (((last.rssMiB[role] ?? NaN) - (first.rssMiB[role] ?? NaN)) / (last.pending - first.pending)) * 10_000,
  );
}

async function pendingOf(ctx: ScenarioContext, name: SystemName): Promise<SystemRow> {
  const { tasks, concurrency, timeLimitS, checkpoints, settleS } = ctx.plan.pending;
  // A fresh system (empty store, new processes), so memory and size reflect this scenario's tasks only.
  await ctx.systems.reset(name);
  const system = ctx.systems.get(name);
  await settle(ctx, name, settleS);
  const memory = new MemorySampler(system.processes());
  const sample = async (pending: number): Promise<Checkpoint> => ({
    pending,
    rssMiB: memory.now(),
    storeBytes: await system.storeBytes(),
  });
  const points = [await sample(0)];
  const peaks = new MemorySampler(system.processes()).start();
  const run = runId('pending', name);
  // The time limit counts creating only: after each chunk the system works off what it was handed (a
  // Temporal worker runs each new task's first workflow task) before its memory is read, so that a
  // checkpoint shows N tasks pending, not N tasks created of which the worker has seen fewer.
  let creatingMs = 0;
  let created = 0;
  let errors = 0;
  const unsettled: number[] = [];
  for (let chunk = 1; chunk <= checkpoints && creatingMs < timeLimitS * 1000; chunk++) {
    const target = Math.round((tasks * chunk) / checkpoints);
    // Each chunk ends at its share of the tasks or of the time, so a slow system still gets checkpoints.
    const budgetMs = (timeLimitS * 1000 * chunk) / checkpoints - creatingMs;
    const chunkStarted = Date.now();
    const load = await withConcurrency(
      system,
      { concurrency, count: target - created, timeLimitMs: budgetMs },
      (i) => ({
        taskId: `${run}-${created + i}`,
        taskType: 'bench.pending',
        executeAtMs: Date.now() + 30 * 86_400_000,
        callbackUrl: ctx.receiver.callbackUrl(run),
        maxRetries: 3,
        payload: { orderId: `order-${created + i}`, note: 'pending' },
      }),
    );
    creatingMs += Date.now() - chunkStarted;
    created += load.created.length;
    errors += load.failures;
    if ((await settle(ctx, name, settleS)) === null) unsettled.push(created);
    points.push(await sample(created));
  }
  const createdPerSec = created / (creatingMs / 1000);
  const end = points[points.length - 1]!;
  const peakRssMiB = peaks.stop();
  const storeDelta =
    end.storeBytes !== undefined && points[0]!.storeBytes !== undefined
      ? end.storeBytes - points[0]!.storeBytes
      : undefined;
  const bytesPerTask =
    storeDelta !== undefined && created > 0 ? Math.round(storeDelta / created) : 'n/a (no store)';
  const service = system.processes().filter((p) => p.kind === 'service');
  const rss = (point: Checkpoint) =>
    service.map((p) => `${p.role} ${Math.round(point.rssMiB[p.role] ?? NaN)}`).join(', ');
  ctx.log(
    `pending ${name}: ${created} tasks at ${createdPerSec.toFixed(0)}/s; ${bytesPerTask ?? 'n/a'} store bytes/task; RSS ${rss(points[0]!)} → ${rss(end)}`,
  );
  const extra: Record<string, string | number | null> = {
    pending: created,
    'create errors': errors,
    'store bytes/task': bytesPerTask,
    'store MiB': end.storeBytes !== undefined ? round(end.storeBytes / 1048576) : 'n/a',
    'store GiB per 1M (extrapolated)':
      typeof bytesPerTask === 'number' ? round((bytesPerTask * 1e6) / 1073741824, 2) : 'n/a',
    'RSS at 0 MiB': rss(points[0]!),
    'RSS at end MiB': rss(end),
    'checkpoints not settled': unsettled.length === 0 ? 'none' : unsettled.join(', '),
  };
  const middle = points[Math.floor((points.length - 1) / 2)]!;
  const data: Record<string, number | null> = {};
  const growth: string[] = [];
  const perTenK: string[] = [];
  for (const p of service) {
    const percent = ((end.rssMiB[p.role] ?? NaN) / (middle.rssMiB[p.role] ?? NaN) - 1) * 100;
    data[`${p.role} growth 2nd half %`] = Number.isFinite(percent) ? round(percent) : null;
    data[`${p.role} MiB per 10k (2nd half)`] = slope(points, p.role);
    growth.push(`${p.role} ${Number.isFinite(percent) ? round(percent) : 'n/d'}`);
    perTenK.push(`${p.role} ${slope(points, p.role) ?? 'n/d'}`);
  }
  extra['RSS growth 2nd half %'] = growth.join(' · ');
  extra['RSS MiB per 10k tasks (2nd half)'] = perTenK.join(' · ');
  extra.checkpoints = points
    .map(
      (point) => `${point.pending}:${service.map((p) => Math.round(point.rssMiB[p.role] ?? NaN)).join('/')}`,
    )
    .join(' ');
  return { system: name, createdPerSec: round(createdPerSec), peakRssMiB, extra, data };
}

export const pending: Scenario = {
  name: 'pending',
  async run(ctx: ScenarioContext) {
    const { tasks, concurrency, timeLimitS, checkpoints } = ctx.plan.pending;
    const started = Date.now();
    const rows: SystemRow[] = [];
    for (const name of ctx.systems.names) {
      if (name === 'ours-direct' && ctx.systems.names.includes('ours-api')) {
        rows.push({
          system: name,
          notApplicable:
            'the same worker and server as ours-api (one stack), measured there with the API process too',
        });
        continue;
      }
      rows.push(await pendingOf(ctx, name));
    }
    return {
      name: 'pending',
      title: `pending: up to ${tasks} tasks waiting (due in 30 days)`,
      params: {
        tasks,
        concurrency,
        'time limit per system': `${timeLimitS} s of creating (a slower system reports the count it reached)`,
        checkpoints: `${checkpoints} (RSS and store size after each, once the system is idle, waiting up to ${ctx.plan.pending.settleS} s)`,
      },
      rows,
      notes: [
        'Store: SQLite database + WAL/journal files (Temporal) or Redis INFO used_memory (BullMQ); the floor keeps tasks in its heap.',
        'Each system is restarted fresh (empty store, new processes) before this scenario.',
        '`checkpoints`: pending count, then service RSS in MiB (roles in the order of `RSS at 0`), each read once the system was idle; `checkpoints not settled` lists those read while it was still busy.',
        'RSS growth compares the last checkpoint with the middle one; MiB per 10k is the slope over the second half.',
      ],
      seconds: (Date.now() - started) / 1000,
    };
  },
};
