/**
 * The fault matrix: what each scenario breaks, when, and for how long. Every scenario runs the same
 * load against a fresh stack; what differs is the fault, which runs alongside the load.
 */
import { sleep } from '../infra/wait.js';
import type { Load } from './load.js';
import type { Recorder } from './recorder.js';
import type { FaultStack } from './stack.js';

export type Mode = 'full' | 'short';

export interface LoadShape {
  workers: number;
  apis: number;
  rate: number;
  loadMs: number;
  delayMs: readonly [number, number];
  /** Callback attempt timeout of the tasks. */
  timeoutMs: number;
  /** How long the receiver takes to answer normally (keeps callbacks in flight). */
  receiverLatencyMs: number;
  /** How long after the load the harness waits for every task to finish. */
  settleMs: number;
  /** Creates go through a load balancer that follows each API's /readyz (else to each API in turn). */
  balancer?: boolean;
  /** Extra environment of the worker and API processes. */
  env?: Record<string, string>;
}

export interface FaultContext {
  stack: FaultStack;
  recorder: Recorder;
  load: Load;
  mode: Mode;
  /** Start of the load. */
  t0: number;
  log(message: string): void;
  /** Facts the scenario observed that the report shows beside the numbers. */
  notes: string[];
  /** What the fault itself broke of the promise (a process that had to be killed, say). */
  problems: string[];
  /** Call when the fault begins and when it is over (the component is back). */
  faultStarted(): void;
  faultEnded(): void;
}

export interface Scenario {
  id: number;
  title: string;
  /** At-least-once allows duplicate effects here (a process died mid-attempt, or a partner is slower than the timeout). */
  duplicatesAllowed: boolean;
  shape(mode: Mode): LoadShape;
  fault(ctx: FaultContext): Promise<void>;
}

/** Waits until `ms` after the load started. */
const at = (ctx: FaultContext, ms: number) => sleep(ctx.t0 + ms - Date.now());

function baseShape(mode: Mode): LoadShape {
  return mode === 'short'
    ? {
        workers: 1,
        apis: 1,
        rate: 5,
        loadMs: 20_000,
        delayMs: [1_000, 4_000],
        timeoutMs: 3_000,
        receiverLatencyMs: 200,
        settleMs: 90_000,
      }
    : {
        workers: 1,
        apis: 1,
        rate: 10,
        loadMs: 60_000,
        delayMs: [2_000, 8_000],
        timeoutMs: 3_000,
        receiverLatencyMs: 200,
        settleMs: 360_000,
      };
}

/** When the fault starts and how long the component stays down. */
function timing(mode: Mode): { startMs: number; downMs: number } {
  return mode === 'short' ? { startMs: 6_000, downMs: 6_000 } : { startMs: 15_000, downMs: 10_000 };
}

/** A process killed with `kill -9` at the fault's start and started again after the outage. */
async function crashAndRestart(
  ctx: FaultContext,
  member: { crash(): Promise<void>; restart(): Promise<void> },
): Promise<void> {
  const { startMs, downMs } = timing(ctx.mode);
  await at(ctx, startMs);
  ctx.notes.push(`${ctx.recorder.inFlight} callback(s) in flight at the kill`);
  ctx.faultStarted();
  await member.crash();
  await sleep(downMs);
  await member.restart();
  ctx.faultEnded();
}

/**
 * An outage from the fault's start: `down`, then `during` (if any) until the outage's length has
 * passed (`ms.short` or `ms.full` by mode), then `up`.
 */
async function outage(
  ctx: FaultContext,
  ms: { short: number; full: number },
  steps: { down(): unknown; during?(untilMs: number): Promise<void>; up(): unknown },
): Promise<void> {
  await at(ctx, timing(ctx.mode).startMs);
  ctx.faultStarted();
  await steps.down();
  const until = Date.now() + (ctx.mode === 'short' ? ms.short : ms.full);
  await steps.during?.(until);
  await sleep(until - Date.now());
  await steps.up();
  ctx.faultEnded();
}

/** The API's not-ready period in the rolling scenario: its balancer probes every 250 ms. */
const ROLL_NOT_READY_SECONDS = 2;
/** `SHUTDOWN_GRACE_SECONDS` as the processes run it (the default). */
const ROLL_GRACE_SECONDS = 35;

/**
 * Each worker, then each API, one at a time as a Deployment's rollout replaces pods: SIGTERM, exit,
 * start again, ready, next. The termination grace is the one docs/reliability.md gives for a pod:
 * worker grace + 10 s, API not-ready period + grace + 5 s; past it the process is killed (a failure).
 */
async function rollingRestart(ctx: FaultContext): Promise<void> {
  const rounds = ctx.mode === 'short' ? 1 : 2;
  await at(ctx, 5_000);
  ctx.faultStarted();
  for (let round = 1; round <= rounds; round++) {
    for (const [members, terminationGraceMs] of [
      [ctx.stack.workers, (ROLL_GRACE_SECONDS + 10) * 1000],
      [ctx.stack.apis, (ROLL_NOT_READY_SECONDS + ROLL_GRACE_SECONDS + 5) * 1000],
    ] as const) {
      for (const member of members) {
        const inFlight = ctx.recorder.inFlight;
        const roll = await member.roll(terminationGraceMs);
        ctx.notes.push(
          `${roll.member}: exit ${roll.exit} ${(roll.stopMs / 1000).toFixed(1)} s after SIGTERM (${inFlight} callbacks in flight at the receiver), ready ${(roll.readyMs / 1000).toFixed(1)} s later`,
        );
        if (roll.exit !== '0') ctx.problems.push(`${roll.member} ended by ${roll.exit} on SIGTERM`);
      }
    }
  }
  ctx.faultEnded();
}

export const SCENARIOS: readonly Scenario[] = [
  {
    id: 1,
    title: 'kill -9 the worker (callbacks in flight, tasks coming due), restart after the outage',
    duplicatesAllowed: true,
    shape: baseShape,
    fault: (ctx) => crashAndRestart(ctx, ctx.stack.workers[0]!),
  },
  {
    id: 2,
    title: 'kill -9 the Temporal server, restart it on the same data',
    duplicatesAllowed: true,
    shape: baseShape,
    fault: (ctx) => crashAndRestart(ctx, ctx.stack.server),
  },
  {
    id: 3,
    title: 'kill -9 the API, restart it',
    duplicatesAllowed: true,
    shape: baseShape,
    fault: (ctx) => crashAndRestart(ctx, ctx.stack.apis[0]!),
  },
  {
    id: 4,
    title: 'Temporal unreachable (SIGSTOP, not killed), then resumed',
    duplicatesAllowed: true,
    shape: baseShape,
    async fault(ctx) {
      let workerPid: number | undefined;
      const api = ctx.stack.apis[0]!;
      const probes: { status: number; ms: number }[] = [];
      await outage(
        ctx,
        { short: 15_000, full: 60_000 },
        {
          down: () => {
            workerPid = ctx.stack.workers[0]!.pid;
            ctx.stack.server.freeze();
          },
          during: async (until) => {
            while (Date.now() < until - 2_000) {
              const began = Date.now();
              const status = await fetch(`${api.healthUrl}/readyz`, { signal: AbortSignal.timeout(15_000) })
                .then((res) => res.status)
                .catch(() => 0);
              probes.push({ status, ms: Date.now() - began });
              await sleep(Math.min(2_000, until - Date.now()));
            }
          },
          up: () => ctx.stack.server.thaw(),
        },
      );
      const refused = probes.filter((probe) => probe.status === 503).length;
      ctx.notes.push(
        `/readyz during the outage: ${refused}/${probes.length} answered 503, slowest ${Math.max(0, ...probes.map((p) => p.ms))} ms`,
      );
      ctx.notes.push(
        ctx.stack.workers[0]!.pid === workerPid
          ? 'worker reconnected without a restart (same pid)'
          : 'worker was restarted (pid changed)',
      );
    },
  },
  {
    id: 5,
    title: 'callback receiver down, then back',
    duplicatesAllowed: false,
    shape: baseShape,
    fault: (ctx) =>
      outage(
        ctx,
        { short: 15_000, full: 180_000 },
        { down: () => ctx.recorder.down(), up: () => ctx.recorder.up() },
      ),
  },
  {
    id: 6,
    title: 'slow partner: the receiver answers after the attempt timeout for a while',
    duplicatesAllowed: true,
    shape: (mode) => ({ ...baseShape(mode), timeoutMs: 1_000 }),
    fault: (ctx) =>
      outage(
        ctx,
        { short: 10_000, full: 20_000 },
        {
          down: () => (ctx.recorder.slowMs = 2_500),
          up: () => (ctx.recorder.slowMs = undefined),
        },
      ),
  },
  {
    id: 7,
    title: 'two workers and two APIs, one worker killed halfway and not restarted',
    duplicatesAllowed: true,
    shape: (mode) => ({ ...baseShape(mode), workers: 2, apis: 2 }),
    async fault(ctx) {
      await at(ctx, ctx.stack.workers.length > 0 ? baseShape(ctx.mode).loadMs / 2 : 0);
      ctx.notes.push(`${ctx.recorder.inFlight} callback(s) in flight at the kill`);
      ctx.faultStarted();
      await ctx.stack.workers[0]!.crash();
      ctx.faultEnded();
    },
  },
  {
    id: 10,
    title:
      'rolling restart: 2 workers, then 2 APIs, one at a time, SIGTERM (graceful), 20 tasks/s, receiver answering in 1 s',
    duplicatesAllowed: false,
    shape: (mode) => ({
      workers: 2,
      apis: 2,
      rate: 20,
      loadMs: mode === 'short' ? 40_000 : 120_000,
      delayMs: [1_000, 4_000],
      timeoutMs: 10_000,
      receiverLatencyMs: 1_000,
      settleMs: 120_000,
      balancer: true,
      env: {
        SHUTDOWN_NOT_READY_SECONDS: String(ROLL_NOT_READY_SECONDS),
        SHUTDOWN_GRACE_SECONDS: String(ROLL_GRACE_SECONDS),
        // Each delivery and each process's shutdown in its log (with --keep): which process sent a duplicate.
        LOG_LEVEL: 'info',
      },
    }),
    fault: rollingRestart,
  },
];
