/** One system's figures over another's in the same scenario (ours-pull ÷ ours-api: pull ÷ callback). */
import type { SystemRow } from './scenarios/scenario.js';

const ratio = (a: number | undefined, b: number | undefined): number | null =>
  a === undefined || b === undefined || !Number.isFinite(a) || !Number.isFinite(b) || b <= 0
    ? null
    : Math.round((a / b) * 100) / 100;

const totalCpu = (row: SystemRow): number | undefined =>
  row.cpuMsPerTask ? Object.values(row.cpuMsPerTask).reduce((sum, ms) => sum + ms, 0) : undefined;

/**
 * `row` ÷ `base`: p50 and p99 lag and CPU ms per task (all processes together), as extra columns
 * named after `base`; null where either figure is missing or not finite, or the base is 0.
 */
export function ratioColumns(row: SystemRow, base: SystemRow): Record<string, number | null> {
  const of = base.system;
  return {
    [`p50 ÷ ${of}`]: ratio(row.lagMs?.p50, base.lagMs?.p50),
    [`p99 ÷ ${of}`]: ratio(row.lagMs?.p99, base.lagMs?.p99),
    [`CPU/task ÷ ${of}`]: ratio(totalCpu(row), totalCpu(base)),
  };
}

/** Adds ours-pull ÷ ours-api to ours-pull's row when both were measured. */
export function addPullRatio(rows: SystemRow[]): void {
  const pull = rows.find((r) => r.system === 'ours-pull' && !r.notApplicable);
  const api = rows.find((r) => r.system === 'ours-api' && !r.notApplicable);
  if (pull && api) pull.extra = { ...pull.extra, ...ratioColumns(pull, api) };
}
