/**
 * herd: N tasks all due at the same instant; how long until the last callback lands. The instant is
 * set from a short calibration of each system's create rate, so creating the herd fits before it;
 * a system too slow to create N tasks within the longest lead gets as many as it created by then.
 */
import { availableParallelism } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { awaitArrivals } from '../awaiting.js';
import { analyze } from '../deliveries.js';
import { CpuMeter } from '../infra/cpu.js';
import { withConcurrency } from '../load.js';
import { addCallbackRatios, variantNotes } from '../ratio.js';
import type { SystemName } from '../systems/system.js';
import {
  measured,
  perTask,
  recover,
  round,
  runId,
  settle,
  ENGINE_NOTE,
  type Scenario,
  type ScenarioContext,
  type SystemRow,
} from './scenario.js';

const CONCURRENCY = 64;

/** Creates/s of a system, from a burst of long-delay tasks that never fire within the benchmark. */
async function calibrate(ctx: ScenarioContext, name: SystemName): Promise<number> {
  const run = runId('herd-calibration', name);
  const count = Math.min(128, Math.ceil(ctx.plan.herd.tasks / 4));
  const load = await withConcurrency(
    ctx.systems.get(name),
    { concurrency: CONCURRENCY, count, timeLimitMs: 5000 },
    (i) => ({
      taskId: `${run}-${i}`,
      taskType: 'bench.calibration',
      executeAtMs: Date.now() + 86_400_000,
      callbackUrl: ctx.receiver.callbackUrl(run),
      maxRetries: 0,
      payload: { i },
    }),
  );
  return load.createdPerSec;
}

async function herdOf(ctx: ScenarioContext, name: SystemName): Promise<SystemRow> {
  const { tasks, maxLeadS, waitS } = ctx.plan.herd;
  const rate = await calibrate(ctx, name);
  await settle(ctx, name, 10);
  const leadS = Math.min(maxLeadS, (tasks / Math.max(rate, 1)) * 1.3 + 3);
  const run = runId('herd', name);
  const [{ load, endedMs, stopped, firing, idle }, cost] = await measured(ctx, name, async () => {
    const dueMs = Date.now() + leadS * 1000;
    const load = await withConcurrency(
      ctx.systems.get(name),
      { concurrency: CONCURRENCY, count: tasks, timeLimitMs: leadS * 1000 - 1000 },
      (i) => ({
        taskId: `${run}-${i}`,
        taskType: 'bench.herd',
        executeAtMs: dueMs,
        callbackUrl: ctx.receiver.callbackUrl(run),
        maxRetries: 3,
        payload: { orderId: `order-${i}`, note: 'herd' },
      }),
    );
    // CPU from the due instant to the last arrival, apart: the herd's wall is how fast the system
    // fires, and the creates before the instant (in the whole trial's CPU) do not slow that.
    const atDue = sleep(Math.max(0, dueMs - Date.now())).then(
      () => new CpuMeter(ctx.systems.get(name).processes()),
    );
    const stopped = await awaitArrivals(ctx.receiver, run, {
      expected: load.created.length,
      deadlineMs: dueMs + waitS * 1000,
    });
    const endedMs = Date.now();
    const firing = { cpuS: (await atDue).stop(), seconds: (endedMs - dueMs) / 1000 };
    // The last workflow task (recording the callback's result) comes after the arrival: count it too.
    const idle = stopped === 'complete' && (await settle(ctx, name, 10)) !== null;
    return { load, endedMs, stopped, firing, idle };
  });
  const deliveries = analyze(load.created, await ctx.receiver.arrivals(run), endedMs);
  await ctx.receiver.forget(run);
  ctx.log(
    `herd ${name}: ${load.created.length} created at ${load.createdPerSec.toFixed(0)}/s, due after ${leadS.toFixed(0)} s; ` +
      `last landed ${(deliveries.lastLandedAfterDueMs / 1000).toFixed(1)} s after due, ${deliveries.undelivered} undelivered`,
  );
  if (!idle) await recover(ctx, name, stopped === 'complete' || deliveries.undelivered < 100 ? 20 : 0);
  const row: SystemRow = {
    system: name,
    createdPerSec: round(load.createdPerSec),
    deliveredPerSec: round(deliveries.deliveredPerSec),
    duplicates: deliveries.duplicates,
    ...(stopped === 'complete' ? { lost: 0 } : { late: deliveries.undelivered }),
    peakRssMiB: cost.peakRssMiB,
    ...perTask(cost, load.created.length),
    extra: {
      tasks: load.created.length,
      'due after s': round(leadS),
      'last landed after due s': Number.isFinite(deliveries.lastLandedAfterDueMs)
        ? round(deliveries.lastLandedAfterDueMs / 1000, 2)
        : null,
      ...firingCost(firing, load.created.length),
    },
  };
  if (deliveries.lagMs) row.lagMs = deliveries.lagMs;
  return row;
}

/**
 * From the due instant to the last arrival: CPU ms per task of each process, and the cores all of
 * them kept busy (2 on this machine means the firing was CPU-bound).
 */
function firingCost(
  firing: { cpuS: Record<string, number>; seconds: number },
  tasks: number,
): Record<string, string | number> {
  const total = Object.values(firing.cpuS).reduce((sum, s) => sum + s, 0);
  return {
    'firing CPU ms/task': Object.entries(firing.cpuS)
      .map(([role, s]) => `${role} ${round((s * 1000) / Math.max(tasks, 1), 1)}`)
      .join(' · '),
    'cores busy while firing': round(total / Math.max(firing.seconds, 0.001), 2),
  };
}

export const herd: Scenario = {
  name: 'herd',
  async run(ctx: ScenarioContext) {
    const { tasks, maxLeadS, waitS } = ctx.plan.herd;
    const started = Date.now();
    const rows: SystemRow[] = [];
    for (const name of ctx.systems.names) {
      if (name === 'ours-direct' && ctx.systems.names.includes('ours-api')) {
        rows.push({
          system: name,
          notApplicable:
            'the same worker and server as ours-api (one stack); firing does not depend on how tasks were created',
        });
        continue;
      }
      rows.push(await herdOf(ctx, name));
    }
    addCallbackRatios(rows);
    return {
      name: 'herd',
      title: `herd: ${tasks} tasks due at the same instant`,
      params: {
        tasks,
        'create concurrency': CONCURRENCY,
        'due instant': `now + created-in time × 1.3 + 3 s (from a calibration of min(128, tasks ÷ 4) creates), at most ${maxLeadS} s`,
        'wait after due': `${waitS} s`,
      },
      rows,
      notes: [
        ENGINE_NOTE,
        'A system that could not create all tasks before the instant fires the ones it created (see `tasks`).',
        'delivered/s = callbacks ÷ (last arrival − due instant); lag = arrival − due instant.',
        'firing CPU ms/task and cores busy: CPU of each process from the due instant until the last arrival (the creates before the instant left out); the machine has ' +
          `${availableParallelism()} cores.`,
        ...variantNotes(ctx.systems.names),
      ],
      seconds: (Date.now() - started) / 1000,
    };
  },
};
