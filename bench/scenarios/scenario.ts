/** What scenarios share: their context, their result rows, and measuring one system's phase. */
import { CpuMeter } from '../infra/cpu.js';
import { MemorySampler } from '../infra/memory.js';
import { ENGINE_COUNTS, type EngineCounts, type PersistenceTotals } from '../infra/temporal-server.js';
import type { Plan } from '../plan.js';
import type { Receiver } from '../receiver-client.js';
import type { Summary } from '../stats.js';
import type { SystemPool } from '../system-pool.js';
import type { SystemName } from '../systems/system.js';

export const SCENARIO_NAMES = [
  'failing',
  'steady',
  'lag',
  'herd',
  'create',
  'create-batch',
  'pending',
] as const;
export type ScenarioName = (typeof SCENARIO_NAMES)[number];
/** What `--quick` runs without `--scenario`: create-batch is left out to keep it under 2 minutes. */
export const QUICK_SCENARIO_NAMES: readonly ScenarioName[] = SCENARIO_NAMES.filter(
  (name) => name !== 'create-batch',
);

export interface ScenarioContext {
  plan: Plan;
  receiver: Receiver;
  systems: SystemPool;
  log(message: string): void;
}

/** One system's figures in one scenario; a field left out does not apply. */
export interface SystemRow {
  system: SystemName;
  /** Why the scenario does not apply to this system (the row is then all n/a). */
  notApplicable?: string;
  createdPerSec?: number;
  deliveredPerSec?: number;
  /** Fire lag, ms; percentiles falling on undelivered tasks are null (not delivered by the end of the wait). */
  lagMs?: Summary;
  duplicates?: number;
  /** Acknowledged tasks never delivered, known only when the wait ran until everything due arrived (then 0). */
  lost?: number;
  /** Tasks due but not delivered when the wait ended (cut short, or over): late, and maybe lost. */
  late?: number;
  /** Peak RSS per process role during this system's phase, MiB. */
  peakRssMiB?: Record<string, number>;
  /** CPU time per task per process role, ms. */
  cpuMsPerTask?: Record<string, number>;
  /** Temporal persistence calls per task. */
  dbOpsPerTask?: number;
  /** The engine's work per task, from the Temporal server's own metrics (EngineCounts). */
  enginePerTask?: EngineCounts;
  /**
   * Seconds spent in Temporal persistence calls per second of the phase. The dev server has one SQLite
   * connection: above 1, calls queue for it, and the database is the wall.
   */
  dbBusy?: number;
  /** Scenario-specific figures, shown as extra columns. */
  extra?: Record<string, string | number | null>;
  /** Figures kept in the JSON only (e.g. for the targets), not shown as columns. */
  data?: Record<string, number | null>;
}

export interface ScenarioResult {
  name: ScenarioName;
  title: string;
  params: Record<string, string | number>;
  rows: SystemRow[];
  notes: string[];
  seconds: number;
}

export interface Scenario {
  name: ScenarioName;
  run(ctx: ScenarioContext): Promise<ScenarioResult>;
}

export interface PhaseCost {
  peakRssMiB: Record<string, number>;
  cpuS: Record<string, number>;
  persistence: { requests: number; seconds: number; engine: EngineCounts } | undefined;
  seconds: number;
}

/** Runs `fn` while sampling the system's memory, CPU and (Temporal) persistence calls. */
export async function measured<T>(
  ctx: ScenarioContext,
  name: SystemName,
  fn: () => Promise<T>,
): Promise<[T, PhaseCost]> {
  const system = ctx.systems.get(name);
  const processes = system.processes();
  const memory = new MemorySampler(processes).start();
  const cpu = new CpuMeter(processes);
  const before = await system.persistence?.();
  const started = Date.now();
  try {
    const value = await fn();
    const after = await system.persistence?.();
    return [
      value,
      {
        peakRssMiB: memory.stop(),
        cpuS: cpu.stop(),
        persistence: diff(before, after),
        seconds: (Date.now() - started) / 1000,
      },
    ];
  } finally {
    memory.stop();
  }
}

function diff(before: PersistenceTotals | undefined, after: PersistenceTotals | undefined) {
  if (!before || !after) return undefined;
  const engine = Object.fromEntries(
    ENGINE_COUNTS.map((key) => [key, after.engine[key] - before.engine[key]]),
  ) as unknown as EngineCounts;
  return { requests: after.requests - before.requests, seconds: after.seconds - before.seconds, engine };
}

/** CPU ms per task by role, and persistence calls per task, from a phase's cost. */
export function perTask(
  cost: PhaseCost,
  tasks: number,
): Pick<SystemRow, 'cpuMsPerTask' | 'dbOpsPerTask' | 'dbBusy' | 'enginePerTask'> {
  if (tasks === 0) return {};
  const cpuMsPerTask = Object.fromEntries(
    Object.entries(cost.cpuS).map(([role, s]) => [role, round((s * 1000) / tasks)]),
  );
  if (!cost.persistence) return { cpuMsPerTask };
  return {
    cpuMsPerTask,
    dbOpsPerTask: round(cost.persistence.requests / tasks),
    dbBusy: round(cost.persistence.seconds / cost.seconds, 2),
    enginePerTask: Object.fromEntries(
      ENGINE_COUNTS.map((key) => [key, round(cost.persistence!.engine[key] / tasks, 2)]),
    ) as unknown as EngineCounts,
  };
}

/** How to read the engine column of a Temporal row. */
export const ENGINE_NOTE =
  "engine/task (Temporal rows, from the server's own metrics, namespace default, until the system is idle again): history = mutable-state writes (CreateWorkflowExecution, UpdateWorkflowExecution), visibility = visibility rows written (started, upsert, closed), matching = tasks handed to matching (AddWorkflowTask, AddActivityTask), WFT = workflow tasks completed, frontend = frontend calls other than long polls.";

/** Waits until the system is idle (see SystemPool.settle); seconds waited, or null if still busy. */
export function settle(ctx: ScenarioContext, name: SystemName, maxS: number): Promise<number | null> {
  return ctx.systems.settle(name, maxS);
}

/** Settles the system, or replaces it with a fresh one when it is still busy after `maxS` (a backlog). */
export async function recover(ctx: ScenarioContext, name: SystemName, maxS: number): Promise<void> {
  if ((await settle(ctx, name, maxS)) !== null) return;
  const started = Date.now();
  await ctx.systems.reset(name);
  ctx.log(
    `${name}: still busy after ${maxS} s, restarted in ${((Date.now() - started) / 1000).toFixed(0)} s`,
  );
}

export const round = (value: number, digits = 1): number => {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
};

/** Run ids are unique per benchmark process, so receivers never mix arrivals of two phases. */
let runCounter = 0;
export function runId(scenario: string, system: string, label = ''): string {
  return `${scenario}-${system}${label ? `-${label}` : ''}-${++runCounter}`;
}
