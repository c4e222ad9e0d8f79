/**
 * steady: tasks created at a fixed rate with delays spread over a range; fire lag of each callback.
 * Every system runs the headline rate, then a short search: doublings while it keeps the p99 lag
 * under the limit, halvings while it does not. Systems run one after the other.
 */
import { awaitArrivals } from '../awaiting.js';
import { analyze, type Deliveries } from '../deliveries.js';
import { atRate, type LoadOutcome } from '../load.js';
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
  type SystemRow,
} from './scenario.js';

interface Trial {
  rate: number;
  load: LoadOutcome;
  deliveries: Deliveries;
  stopped: 'complete' | 'deadline' | 'failing';
  passed: boolean;
  row: SystemRow;
}

/** One rate for `windowS`; `failFast` stops the wait once the trial has certainly failed. */
async function trial(
  ctx: ScenarioContext,
  name: SystemName,
  rate: number,
  windowS: number,
  failFast: boolean,
): Promise<Trial> {
  const { delayMinS, delayMaxS, lagLimitMs, graceS } = ctx.plan.steady;
  const run = runId('steady', name, String(rate));
  const random = seededRandom(rate);
  const target = Math.round(rate * windowS);
  const [{ load, stopped, endedMs }, cost] = await measured(ctx, name, async () => {
    const load = await atRate(
      ctx.systems.get(name),
      { rate, count: target, maxInFlight: 512, timeLimitMs: windowS * 1500 },
      (i, sentMs) => ({
        taskId: `${run}-${i}`,
        taskType: 'bench.steady',
        executeAtMs: sentMs + Math.round((delayMinS + random() * (delayMaxS - delayMinS)) * 1000),
        callbackUrl: ctx.receiver.callbackUrl(run),
        maxRetries: 3,
        payload: { orderId: `order-${i}`, note: 'steady' },
      }),
    );
    const lastDue = Math.max(...load.created.map((task) => task.executeAtMs));
    const stopped = await awaitArrivals(ctx.receiver, run, {
      expected: load.created.length,
      deadlineMs: lastDue + graceS * 1000,
      ...(failFast ? { failFast: { tasks: load.created, lagLimitMs } } : {}),
    });
    const endedMs = Date.now();
    // The last workflow task (recording the callback's result) comes after the arrival: count it too.
    if (stopped === 'complete') await settle(ctx, name, 10);
    return { load, stopped, endedMs };
  });
  const deliveries = analyze(load.created, await ctx.receiver.arrivals(run), endedMs);
  await ctx.receiver.forget(run);
  const p99 = deliveries.lagMs?.p99 ?? Infinity;
  const passed =
    stopped === 'complete' && load.failures === 0 && load.created.length >= target * 0.95 && p99 < lagLimitMs;
  ctx.log(
    `steady ${name} @${rate}/s: created ${load.created.length}/${target} (${load.createdPerSec.toFixed(0)}/s), ` +
      `delivered ${deliveries.delivered}, p99 ${p99} ms, ${stopped} → ${passed ? 'pass' : 'fail'}`,
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
  return { rate, load, deliveries, stopped, passed, row };
}

/** A large backlog is cheaper to restart away than to wait out. */
function settleFor(last: Trial, settleS: number): number {
  return last.deliveries.undelivered + last.deliveries.notDue > 100 ? 0 : settleS;
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
      const trials = [await trial(ctx, name, plan.headlineRate, plan.headlineWindowS, false)];
      await recover(ctx, name, settleFor(trials[0]!, plan.settleS));
      const up = trials[0]!.passed;
      const steps = up ? plan.stepsUp : plan.stepsDown;
      for (let k = 1; k <= steps; k++) {
        const rate = up ? plan.headlineRate * 2 ** k : plan.headlineRate / 2 ** k;
        const next = await trial(ctx, name, rate, plan.searchWindowS, true);
        trials.push(next);
        await recover(ctx, name, settleFor(next, plan.settleS));
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
