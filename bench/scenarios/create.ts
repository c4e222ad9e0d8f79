/**
 * create: creation throughput of 64 concurrent clients, tasks due in an hour (nothing fires). Rounds
 * rotate the order of the systems, and each figure is the median over rounds; the API-to-direct
 * ratio is taken within each round, then its median.
 */
import { withConcurrency } from '../load.js';
import { median } from '../stats.js';
import type { BenchTask, SystemName } from '../systems/system.js';
import {
  measured,
  perTask,
  round,
  runId,
  settle,
  type PhaseCost,
  type Scenario,
  type ScenarioContext,
  type SystemRow,
} from './scenario.js';

interface Round {
  createdPerSec: number;
  created: number;
  p50: number;
  p99: number;
  cost: PhaseCost;
  settledS: number | null;
}

/** Task `i` of a create run: due in an hour, so that nothing fires while creates are measured. */
export function hourAheadTask(run: string, i: number, callbackUrl: string): BenchTask {
  return {
    taskId: `${run}-${i}`,
    taskType: 'bench.create',
    executeAtMs: Date.now() + 3_600_000,
    callbackUrl,
    maxRetries: 3,
    payload: { orderId: `order-${i}`, note: 'create' },
  };
}

async function createRound(ctx: ScenarioContext, name: SystemName, k: number): Promise<Round> {
  const { concurrency, tasksPerRound, roundS } = ctx.plan.create;
  const run = runId('create', name, String(k));
  const [load, cost] = await measured(ctx, name, () =>
    withConcurrency(
      ctx.systems.get(name),
      { concurrency, count: tasksPerRound, timeLimitMs: roundS * 1000 },
      (i) => hourAheadTask(run, i, ctx.receiver.callbackUrl(run)),
    ),
  );
  // Temporal keeps working after the last create returns (first workflow tasks): let it finish
  // before the next system is measured.
  const settledS = await settle(ctx, name, ctx.plan.create.settleS);
  ctx.log(
    `create ${name} round ${k}: ${load.createdPerSec.toFixed(1)}/s (${load.created.length}, ${load.failures} errors), settled in ${settledS} s`,
  );
  return {
    createdPerSec: load.createdPerSec,
    created: load.created.length,
    p50: load.latencyMs?.p50 ?? NaN,
    p99: load.latencyMs?.p99 ?? NaN,
    cost,
    settledS,
  };
}

export const create: Scenario = {
  name: 'create',
  async run(ctx: ScenarioContext) {
    const { concurrency, rounds, tasksPerRound, roundS } = ctx.plan.create;
    const started = Date.now();
    const names = ctx.systems.names;
    const results = new Map<SystemName, Round[]>(names.map((name) => [name, []]));
    for (let k = 0; k < rounds; k++) {
      const order = names.map((_, i) => names[(i + k) % names.length]!);
      for (const name of order) results.get(name)!.push(await createRound(ctx, name, k + 1));
    }
    const ratios = (results.get('ours-api') ?? []).map(
      (r, k) => r.createdPerSec / (results.get('ours-direct')?.[k]?.createdPerSec ?? NaN),
    );
    const rows = names.map((name): SystemRow => {
      const list = results.get(name)!;
      const last = list[list.length - 1]!;
      const row: SystemRow = {
        system: name,
        createdPerSec: round(median(list.map((r) => r.createdPerSec))),
        peakRssMiB: last.cost.peakRssMiB,
        ...perTask(last.cost, last.created),
        extra: {
          'rounds /s': list.map((r) => round(r.createdPerSec)).join(' · '),
          'create p50 ms': round(median(list.map((r) => r.p50))),
          'create p99 ms': round(median(list.map((r) => r.p99))),
          'settle after s': round(median(list.map((r) => r.settledS ?? NaN))),
        },
      };
      if (name === 'ours-api' && ratios.some(Number.isFinite))
        row.extra!['÷ ours-direct'] = round(median(ratios), 2);
      return row;
    });
    return {
      name: 'create',
      title: `create: ${concurrency} concurrent clients, tasks due in an hour`,
      params: {
        concurrency,
        rounds: `${rounds} (system order rotates each round)`,
        'per round': `${tasksPerRound} tasks or ${roundS} s, whichever first`,
      },
      rows,
      notes: [
        'created/s and latencies are medians over rounds; `÷ ours-direct` is the median of per-round ratios.',
        "`settle after`: seconds the system kept working after its last create returned (Temporal runs each new workflow's first task).",
        'CPU ms per task, DB figures and peak RSS are from the last round.',
        'DB busy: seconds spent in Temporal persistence calls per second; the dev server has a single SQLite connection, so above 1 the calls queue for it.',
      ],
      seconds: (Date.now() - started) / 1000,
    };
  },
};
