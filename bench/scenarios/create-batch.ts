/**
 * create-batch: creation rate through our API, single creates against batch creates
 * (`POST /api/v1/tasks/batch`) with the same number of concurrent client connections, tasks due in an
 * hour (nothing fires). Rounds alternate which goes first; each figure is the median over rounds, the
 * batch-to-single ratio is taken within each round, then its median. Only ours-api has a batch create.
 */
import { withConcurrency } from '../load.js';
import { median, summarize } from '../stats.js';
import type { OursApi } from '../systems/ours-api.js';
import type { BenchTask } from '../systems/system.js';
import { hourAheadTask } from './create.js';
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

/** Parameters by mode; kept here so that the scenario needs nothing of the shared plan. */
const PARAMS = {
  full: { connections: 16, batchSize: 100, rounds: 3, tasksPerPhase: 4000, phaseS: 6, settleS: 20 },
  // Quick: smaller batches, so that every connection has one.
  quick: { connections: 16, batchSize: 25, rounds: 1, tasksPerPhase: 800, phaseS: 2, settleS: 4 },
} as const;

type Mode = 'single' | 'batch';

interface Phase {
  createdPerSec: number;
  created: number;
  failures: number;
  /** Failed items by error code (a batch), or the first error (single). */
  errors: Record<string, number>;
  /** Latency of one request (a single create, or a whole batch), ms. */
  p50: number;
  p99: number;
  cost: PhaseCost;
  /** Seconds the stack kept working after the last create returned; null: still busy at the limit. */
  settledS: number | null;
}

/** Closed loop of `connections` clients, each sending batches back to back. */
async function batchLoad(
  api: OursApi,
  {
    connections,
    batchSize,
    count,
    timeLimitMs,
  }: Record<'connections' | 'batchSize' | 'count' | 'timeLimitMs', number>,
  make: (i: number) => BenchTask,
): Promise<Omit<Phase, 'cost' | 'settledS'>> {
  const started = Date.now();
  const latencies: number[] = [];
  let next = 0;
  let created = 0;
  let failures = 0;
  const errors: Record<string, number> = {};
  const client = async () => {
    while (next < count && Date.now() < started + timeLimitMs) {
      const size = Math.min(batchSize, count - next);
      const items = Array.from({ length: size }, () => make(next++));
      const began = performance.now();
      try {
        for (const result of await api.createBatch(items)) {
          if (result.status === 201) created++;
          else {
            failures++;
            const code = result.code ?? `HTTP ${result.status}`;
            errors[code] = (errors[code] ?? 0) + 1;
          }
        }
        latencies.push(performance.now() - began);
      } catch (err) {
        failures += size;
        const code = err instanceof Error ? err.message.slice(0, 40) : 'request failed';
        errors[code] = (errors[code] ?? 0) + size;
      }
    }
  };
  await Promise.all(Array.from({ length: connections }, client));
  const latency = summarize(latencies);
  return {
    createdPerSec: created / Math.max(0.001, (Date.now() - started) / 1000),
    created,
    failures,
    errors,
    p50: latency?.p50 ?? NaN,
    p99: latency?.p99 ?? NaN,
  };
}

async function phase(ctx: ScenarioContext, mode: Mode, k: number): Promise<Phase> {
  const params = PARAMS[ctx.plan.mode];
  const run = runId('create-batch', mode, String(k));
  const api = ctx.systems.get('ours-api') as OursApi;
  const make = (i: number) => hourAheadTask(run, i, ctx.receiver.callbackUrl(run));
  const limits = { count: params.tasksPerPhase, timeLimitMs: params.phaseS * 1000 };
  const [load, cost] = await measured(
    ctx,
    'ours-api',
    async (): Promise<Omit<Phase, 'cost' | 'settledS'>> => {
      if (mode === 'batch')
        return batchLoad(
          api,
          { connections: params.connections, batchSize: params.batchSize, ...limits },
          make,
        );
      const outcome = await withConcurrency(api, { concurrency: params.connections, ...limits }, make);
      return {
        createdPerSec: outcome.createdPerSec,
        created: outcome.created.length,
        failures: outcome.failures,
        errors: outcome.firstError ? { [outcome.firstError.slice(0, 40)]: outcome.failures } : {},
        p50: outcome.latencyMs?.p50 ?? NaN,
        p99: outcome.latencyMs?.p99 ?? NaN,
      };
    },
  );
  const settledS = await settle(ctx, 'ours-api', params.settleS);
  ctx.log(
    `create-batch ${mode} round ${k}: ${load.createdPerSec.toFixed(1)}/s (${load.created}, ${load.failures} errors), settled in ${settledS} s`,
  );
  return { ...load, cost, settledS };
}

function row(mode: Mode, phases: readonly Phase[], ratios: readonly number[]): SystemRow {
  const last = phases[phases.length - 1]!;
  return {
    system: 'ours-api',
    createdPerSec: round(median(phases.map((p) => p.createdPerSec))),
    peakRssMiB: last.cost.peakRssMiB,
    ...perTask(last.cost, last.created),
    extra: {
      create: mode === 'single' ? 'POST /api/v1/tasks' : 'POST /api/v1/tasks/batch',
      'rounds /s': phases.map((p) => round(p.createdPerSec)).join(' · '),
      'request p50 ms': round(median(phases.map((p) => p.p50))),
      'request p99 ms': round(median(phases.map((p) => p.p99))),
      'settle after s': round(median(phases.map((p) => p.settledS ?? NaN))),
      errors: describeErrors(phases),
      '× single': mode === 'batch' ? round(median(ratios), 2) : null,
    },
  };
}

/** Failed creates over every round, by error code: `0`, or e.g. `12 (UNAVAILABLE 12)`. */
function describeErrors(phases: readonly Phase[]): string {
  const total = phases.reduce((sum, p) => sum + p.failures, 0);
  const byCode: Record<string, number> = {};
  for (const phase of phases)
    for (const [code, n] of Object.entries(phase.errors)) byCode[code] = (byCode[code] ?? 0) + n;
  const codes = Object.entries(byCode).map(([code, n]) => `${code} ${n}`);
  return codes.length > 0 ? `${total} (${codes.join(', ')})` : String(total);
}

export const createBatch: Scenario = {
  name: 'create-batch',
  async run(ctx: ScenarioContext) {
    const params = PARAMS[ctx.plan.mode];
    const started = Date.now();
    if (!ctx.systems.names.includes('ours-api')) throw new Error('create-batch needs --system ours-api');
    const results: Record<Mode, Phase[]> = { single: [], batch: [] };
    for (let k = 1; k <= params.rounds; k++) {
      const order: Mode[] = k % 2 === 1 ? ['single', 'batch'] : ['batch', 'single'];
      for (const mode of order) results[mode].push(await phase(ctx, mode, k));
    }
    const ratios = results.batch.map((b, k) => b.createdPerSec / results.single[k]!.createdPerSec);
    return {
      name: 'create-batch',
      title: `create-batch: single vs batch create through the API, ${params.connections} client connections each`,
      params: {
        connections: params.connections,
        'batch size': params.batchSize,
        rounds: `${params.rounds} (which goes first alternates)`,
        'per phase': `${params.tasksPerPhase} tasks or ${params.phaseS} s, whichever first`,
      },
      rows: [row('single', results.single, ratios), row('batch', results.batch, ratios)],
      notes: [
        'Both rows are ours-api on the same stack; created/s counts tasks acknowledged with 201 (a batch item counts once).',
        '`× single`: median over rounds of the batch rate divided by the single rate of the same round.',
        'Request latency is one HTTP request: one task for single, a whole batch for batch.',
        "`settle after`: seconds the stack kept working after the last create returned (each new workflow's first task); n/d: still busy at the limit. CPU ms per task is measured during the creates only, so work left for the settle is not in it.",
        'CPU ms per task, DB figures and peak RSS are from the last round.',
      ],
      seconds: (Date.now() - started) / 1000,
    };
  },
};
