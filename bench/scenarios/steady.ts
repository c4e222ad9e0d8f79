/**
 * steady: tasks created at a fixed rate with delays spread over a range; fire lag of each callback.
 * Every system runs the headline rate, then a short search: doublings while it keeps the p99 lag
 * under the limit, halvings while it does not. Systems run one after the other. `lag` runs the same
 * trial at one low rate for longer.
 */
import { awaitArrivals } from '../awaiting.js';
import { analyze, type Deliveries } from '../deliveries.js';
import { atRate, type LoadOutcome } from '../load.js';
import type { Arrival } from '../receiver-client.js';
import { seededRandom } from '../stats.js';
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
  type ScenarioName,
  type SystemRow,
} from './scenario.js';

export interface Trial {
  rate: number;
  load: LoadOutcome;
  deliveries: Deliveries;
  /** Every callback of the trial, and when the wait for them ended: for figures beyond `deliveries`. */
  arrivals: Arrival[];
  endedMs: number;
  stopped: 'complete' | 'deadline' | 'failing';
  /** The system was idle when the trial ended, so the next phase need not wait for it. */
  idle: boolean;
  passed: boolean;
  row: SystemRow;
}

/** What a fixed-rate trial runs: `steady` takes these from its plan, `lag` from its own. */
export interface TrialOptions {
  /** Names the run and the task type. */
  scenario: ScenarioName;
  rate: number;
  windowS: number;
  delayMinS: number;
  delayMaxS: number;
  /** The trial passes when the p99 lag is under this; without one it has no verdict (and never passes). */
  lagLimitMs?: number;
  /** Wait for late callbacks this long after the last due time. */
  graceS: number;
  /** Stop the wait once the trial has certainly failed (needs `lagLimitMs`). */
  failFast: boolean;
}

/**
 * Creates tasks at `rate` for `windowS`, each due after a delay drawn from the range (the same seeded
 * sequence for every system at a given rate), then waits for their callbacks.
 */
export async function trial(ctx: ScenarioContext, name: SystemName, options: TrialOptions): Promise<Trial> {
  const { scenario, rate, windowS, delayMinS, delayMaxS, lagLimitMs, graceS, failFast } = options;
  const run = runId(scenario, name, String(rate));
  const random = seededRandom(rate);
  const target = Math.round(rate * windowS);
  const [{ load, stopped, endedMs, idle }, cost] = await measured(ctx, name, async () => {
    const load = await atRate(
      ctx.systems.get(name),
      { rate, count: target, maxInFlight: 512, timeLimitMs: windowS * 1500 },
      (i, sentMs) => ({
        taskId: `${run}-${i}`,
        taskType: `bench.${scenario}`,
        executeAtMs: sentMs + Math.round((delayMinS + random() * (delayMaxS - delayMinS)) * 1000),
        callbackUrl: ctx.receiver.callbackUrl(run),
        maxRetries: 3,
        payload: { orderId: `order-${i}`, note: scenario },
      }),
    );
    const lastDue = Math.max(...load.created.map((task) => task.executeAtMs));
    const stopped = await awaitArrivals(ctx.receiver, run, {
      expected: load.created.length,
      deadlineMs: lastDue + graceS * 1000,
      ...(failFast && lagLimitMs !== undefined ? { failFast: { tasks: load.created, lagLimitMs } } : {}),
    });
    const endedMs = Date.now();
    // The last workflow task (recording the callback's result) comes after the arrival: count it too.
    const idle = stopped === 'complete' && (await settle(ctx, name, 10)) !== null;
    return { load, stopped, endedMs, idle };
  });
  const arrivals = await ctx.receiver.arrivals(run);
  const deliveries = analyze(load.created, arrivals, endedMs);
  await ctx.receiver.forget(run);
  const p99 = deliveries.lagMs?.p99 ?? Infinity;
  const passed =
    stopped === 'complete' &&
    load.failures === 0 &&
    load.created.length >= target * 0.95 &&
    lagLimitMs !== undefined &&
    p99 < lagLimitMs;
  const verdict = lagLimitMs === undefined ? '' : ` → ${passed ? 'pass' : 'fail'}`;
  ctx.log(
    `${scenario} ${name} @${rate}/s: created ${load.created.length}/${target} (${load.createdPerSec.toFixed(0)}/s), ` +
      `delivered ${deliveries.delivered}, p99 ${p99} ms, ${stopped}${verdict}`,
  );
  const row: SystemRow = {
    system: name,
    createdPerSec: round(load.createdPerSec),
    deliveredPerSec: round(deliveries.deliveredPerSec),
    duplicates: deliveries.duplicates,
    peakRssMiB: cost.peakRssMiB,
    ...perTask(cost, load.created.length),
    extra: {
      'target /s': rate,
      created: load.created.length,
      'create errors': load.failures,
      'wait ended': stopped,
    },
  };
  if (deliveries.lagMs) row.lagMs = deliveries.lagMs;
  if (stopped === 'complete') row.lost = 0;
  else row.late = deliveries.undelivered;
  return { rate, load, deliveries, arrivals, endedMs, stopped, idle, passed, row };
}

/**
 * Readies the system for its next phase: nothing to do when the trial left it idle; a large backlog
 * is cheaper to restart away than to wait out.
 */
export async function afterTrial(ctx: ScenarioContext, name: SystemName, last: Trial, settleS: number) {
  if (last.idle) return;
  await recover(ctx, name, last.deliveries.undelivered + last.deliveries.notDue > 100 ? 0 : settleS);
}

function describe(trials: readonly Trial[]): string {
  return [...trials]
    .sort((a, b) => a.rate - b.rate)
    .map((t) => {
      const p99 = t.deliveries.lagMs?.p99;
      const shown = p99 === undefined || !Number.isFinite(p99) ? 'n/d' : `${Math.round(p99)} ms`;
      return `${t.rate}${t.passed ? '✓' : '✗'} (p99 ${shown})`;
    })
    .join(', ');
}

export const steady: Scenario = {
  name: 'steady',
  async run(ctx: ScenarioContext) {
    const plan = ctx.plan.steady;
    const started = Date.now();
    const rows: SystemRow[] = [];
    for (const name of ctx.systems.names) {
      const at = (rate: number, windowS: number, failFast: boolean) =>
        trial(ctx, name, { ...plan, scenario: 'steady', rate, windowS, failFast });
      const trials = [await at(plan.headlineRate, plan.headlineWindowS, false)];
      await afterTrial(ctx, name, trials[0]!, plan.settleS);
      const up = trials[0]!.passed;
      const steps = up ? plan.stepsUp : plan.stepsDown;
      for (let k = 1; k <= steps; k++) {
        const rate = up ? plan.headlineRate * 2 ** k : plan.headlineRate / 2 ** k;
        const next = await at(rate, plan.searchWindowS, true);
        trials.push(next);
        await afterTrial(ctx, name, next, plan.settleS);
        if (next.passed !== up) break;
      }
      const sustained = trials.filter((t) => t.passed).map((t) => t.rate);
      const lowest = Math.min(...trials.map((t) => t.rate));
      const highest = Math.max(...trials.map((t) => t.rate));
      const best =
        sustained.length === 0
          ? `< ${lowest}`
          : Math.max(...sustained) === highest && steps > 0
            ? `≥ ${highest}`
            : String(Math.max(...sustained));
      const row = trials[0]!.row;
      row.extra = { ...row.extra, 'sustained /s (p99 < 1 s)': best, search: describe(trials) };
      rows.push(row);
    }
    return {
      name: 'steady',
      title: `steady: ${plan.headlineRate} tasks/s for ${plan.headlineWindowS} s, delays ${plan.delayMinS}–${plan.delayMaxS} s`,
      params: {
        'headline rate /s': plan.headlineRate,
        'headline window s': plan.headlineWindowS,
        'search window s': plan.searchWindowS,
        'search steps': `×2 up to ${plan.stepsUp}, ÷2 down to ${plan.stepsDown}`,
        delays: `${plan.delayMinS}–${plan.delayMaxS} s, same seeded sequence for every system`,
        'pass when': `p99 lag < ${plan.lagLimitMs} ms, nothing undelivered, ≥ 95% of the target created`,
        'wait after last due': `${plan.graceS} s (search trials stop early once > 1% are over the lag limit)`,
      },
      rows,
      notes: [
        ENGINE_NOTE,
        "Row figures are the headline rate's trial; `search` lists every rate tried (✓ pass, ✗ fail).",
        'delivered/s = callbacks ÷ (last arrival − first due time): with delays spread over 10 s it stays below created/s.',
        'n/d: the percentile falls on tasks not delivered by the end of the wait; `late` counts them (a Temporal backlog still delivers them: the benchmark restarts the stack rather than wait).',
        'CPU ms/task: CPU time of each process over the trial (creation, firing and the wait) ÷ tasks created.',
      ],
      seconds: (Date.now() - started) / 1000,
    };
  },
};
