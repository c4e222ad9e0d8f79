/**
 * failing: callbacks that answer 500 twice, then 200. Every system retries on its own schedule; the
 * gaps between attempts should be 1 s and then 2 s. The load is light, so all systems run at once.
 */
import { awaitArrivals } from '../awaiting.js';
import { analyze } from '../deliveries.js';
import { withConcurrency } from '../load.js';
import { round, runId, type Scenario, type ScenarioContext, type SystemRow } from './scenario.js';

export const failing: Scenario = {
  name: 'failing',
  async run(ctx: ScenarioContext) {
    const { tasksPerSystem, leadS, spreadS, failFirst, waitS } = ctx.plan.failing;
    const started = Date.now();
    const dueFrom = started + leadS * 1000;
    const rows = await Promise.all(
      ctx.systems.names.map(async (name): Promise<SystemRow> => {
        const system = ctx.systems.get(name);
        const run = runId('failing', name);
        const load = await withConcurrency(
          system,
          { concurrency: 8, count: tasksPerSystem, timeLimitMs: leadS * 1000 },
          (i) => ({
            taskId: `${run}-${i}`,
            taskType: 'bench.failing',
            executeAtMs: dueFrom + Math.round((i * spreadS * 1000) / tasksPerSystem),
            callbackUrl: ctx.receiver.callbackUrl(run, failFirst),
            maxRetries: failFirst + 1,
            payload: { i },
          }),
        );
        const lastDue = Math.max(...load.created.map((task) => task.executeAtMs));
        const stopped = await awaitArrivals(ctx.receiver, run, {
          expected: load.created.length * (failFirst + 1),
          deadlineMs: lastDue + waitS * 1000,
        });
        const result = analyze(load.created, await ctx.receiver.arrivals(run), Date.now());
        const gap = (k: number) => result.retryGapsMs[k];
        ctx.log(
          `failing ${name}: ${result.delivered}/${load.created.length} delivered; gaps p50 ${gap(0)?.p50} ms, ${gap(1)?.p50} ms`,
        );
        return {
          system: name,
          lagMs: result.lagMs,
          duplicates: result.duplicates,
          ...(stopped === 'complete' ? { lost: 0 } : { late: result.undelivered }),
          extra: {
            tasks: load.created.length,
            'gap 1→2 p50 ms': gap(0)?.p50 ?? null,
            'gap 1→2 p95 ms': gap(0)?.p95 ?? null,
            'gap 1→2 max ms': gap(0)?.max ?? null,
            'gap 2→3 p50 ms': gap(1)?.p50 ?? null,
            'gap 2→3 p95 ms': gap(1)?.p95 ?? null,
            'gap 2→3 max ms': gap(1)?.max ?? null,
            'gap error p50 ms':
              gap(0) && gap(1) ? round((gap(0)!.p50 - 1000 + gap(1)!.p50 - 2000) / 2, 0) : null,
          },
        };
      }),
    );
    return {
      name: 'failing',
      title: `failing: callbacks answer HTTP 500 twice, then 200; expected gaps 1000 ms then 2000 ms`,
      params: {
        'tasks per system': tasksPerSystem,
        'due in': `${leadS}–${leadS + spreadS} s`,
        'failures per task': failFirst,
        maxRetries: failFirst + 1,
        'systems run': 'all at once (light load)',
        'gap error': 'median gap minus schedule, averaged over both retries',
      },
      rows,
      notes: [
        "Lag is the first attempt's; gaps are between consecutive arrivals of the same task at the receiver.",
        'Tasks are spread out so that the load stays light (ours-api and ours-direct share one stack): the gaps show how closely retries follow the schedule, not how a system behaves when overloaded.',
      ],
      seconds: (Date.now() - started) / 1000,
    };
  },
};
