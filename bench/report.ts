/** The run's results as JSON and as a markdown report: environment, targets, a summary, one table per scenario. */
import type { ScenarioResult, SystemRow } from './scenarios/scenario.js';
import type { SystemName } from './systems/system.js';

export interface Environment {
  host: string;
  load: string;
  node: string;
  temporal: string;
  /** Which Temporal server ran ours-api and ours-direct, on which store. */
  server: string;
  redis: string;
  packages: Record<string, string>;
  settings: Record<string, string>;
}

export interface Target {
  goal: string;
  measured: string;
  ratio: number | null;
  met: boolean | null;
}

export interface RunReport {
  startedAt: string;
  mode: string;
  command: string;
  totalSeconds: number;
  environment: Environment;
  targets: Target[];
  summary: SystemRow[];
  scenarios: ScenarioResult[];
  errors: string[];
}

const row = (result: ScenarioResult | undefined, system: SystemName) =>
  result?.rows.find((r) => r.system === system);

/** The lag target of issue 25: ours-api at 20 tasks/s (`lag`). */
export const LAG_TARGET = { rate: 20, p50Ms: 40, p99Ms: 150 } as const;

/** The targets of the issue, each with a ratio measured in this run. */
export function targets(scenarios: readonly ScenarioResult[]): Target[] {
  const byName = (name: string) => scenarios.find((s) => s.name === name);
  const list: Target[] = [];
  const steady = byName('steady');
  const ours = row(steady, 'ours-api')?.lagMs?.p99;
  const peer = row(steady, 'bullmq')?.lagMs?.p99;
  if (ours !== undefined && peer !== undefined) {
    const ratio = Number.isFinite(ours) ? ours / Math.max(peer, 1) : null;
    list.push({
      goal: 'fire lag p99 at the headline rate: ours-api ≤ bullmq',
      measured: `ours-api ${ms(ours)} vs bullmq ${ms(peer)}`,
      ratio: ratio === null ? null : round2(ratio),
      met: ratio !== null && ratio <= 1,
    });
  }
  const lag = row(byName('lag'), 'ours-api');
  if (lag?.lagMs && lag.extra?.['target /s'] === LAG_TARGET.rate) {
    const { p50, p99 } = lag.lagMs;
    const direct = row(byName('lag'), 'ours-direct')?.lagMs?.p99;
    const ratio = lag.extra?.['p99 ÷ ours-direct'];
    list.push({
      goal: `lag at ${LAG_TARGET.rate}/s p50 / p99 ≤ ${LAG_TARGET.p50Ms} / ${LAG_TARGET.p99Ms} ms (ratio: p99 ours-api ÷ ours-direct)`,
      measured: `ours-api ${ms(p50)} / ${ms(p99)}${direct === undefined ? '' : `; ours-direct p99 ${ms(direct)}`} (${lag.lagMs.count} tasks)`,
      ratio: typeof ratio === 'number' ? ratio : null,
      met: p50 <= LAG_TARGET.p50Ms && p99 <= LAG_TARGET.p99Ms,
    });
  }
  const apiRatio = row(byName('create'), 'ours-api')?.extra?.['÷ ours-direct'];
  if (typeof apiRatio === 'number') {
    const api = row(byName('create'), 'ours-api')?.createdPerSec;
    const direct = row(byName('create'), 'ours-direct')?.createdPerSec;
    list.push({
      goal: 'created/s through the HTTP API ≥ 90% of the direct client',
      measured: `ours-api ${api}/s vs ours-direct ${direct}/s (median of per-round ratios)`,
      ratio: apiRatio,
      met: apiRatio >= 0.9,
    });
  }
  const pendingRow = row(byName('pending'), 'ours-api');
  const growth = pendingRow?.data?.['worker growth 2nd half %'];
  if (typeof growth === 'number') {
    list.push({
      goal: 'worker memory flat as pending tasks grow (< 10% growth over the second half)',
      measured: `RSS ${pendingRow?.extra?.['RSS at 0 MiB']} → ${pendingRow?.extra?.['RSS at end MiB']} MiB over ${pendingRow?.extra?.pending} pending tasks; worker ${growth >= 0 ? '+' : ''}${growth}% over the second half`,
      ratio: round2(1 + growth / 100),
      met: growth < 10,
    });
  }
  return list;
}

/** One line per system: the figures the issue asks for, gathered from the scenarios. */
export function summarize(scenarios: readonly ScenarioResult[], names: readonly SystemName[]): SystemRow[] {
  const byName = (name: string) => scenarios.find((s) => s.name === name);
  return names.map((system) => {
    const all = scenarios
      .map((s) => row(s, system))
      .filter((r): r is SystemRow => r !== undefined && !r.notApplicable);
    const peaks: Record<string, number> = {};
    for (const r of all)
      for (const [role, mib] of Object.entries(r.peakRssMiB ?? {}))
        peaks[role] = Math.max(peaks[role] ?? 0, mib);
    const sum = (field: 'duplicates' | 'lost' | 'late') =>
      all.some((r) => r[field] !== undefined)
        ? all.reduce((total, r) => total + (r[field] ?? 0), 0)
        : undefined;
    const summary: SystemRow = { system, peakRssMiB: peaks };
    const created = row(byName('create'), system)?.createdPerSec;
    const delivered = row(byName('herd'), system)?.deliveredPerSec;
    const lag = row(byName('steady'), system)?.lagMs;
    const duplicates = sum('duplicates');
    const lost = sum('lost');
    const late = sum('late');
    if (created !== undefined) summary.createdPerSec = created;
    if (delivered !== undefined) summary.deliveredPerSec = delivered;
    if (lag) summary.lagMs = lag;
    if (duplicates !== undefined) summary.duplicates = duplicates;
    if (lost !== undefined) summary.lost = lost;
    if (late !== undefined) summary.late = late;
    const sustained = row(byName('steady'), system)?.extra?.['sustained /s (p99 < 1 s)'];
    const bytes = row(byName('pending'), system)?.extra?.['store bytes/task'];
    const lowRate = row(byName('lag'), system)?.lagMs;
    const lagRate = byName('lag')?.params['rate /s'] ?? LAG_TARGET.rate;
    summary.extra = {
      'sustained /s (p99 < 1 s)': sustained ?? 'n/a',
      [`lag at ${lagRate}/s p50 · p99`]: lowRate ? `${ms(lowRate.p50)} · ${ms(lowRate.p99)}` : 'n/a',
      'store bytes/task': bytes ?? 'n/a',
    };
    return summary;
  });
}

export function renderMarkdown(report: RunReport): string {
  const env = report.environment;
  const lines = [
    `# Delayed-task benchmark (${report.mode})`,
    '',
    `${report.startedAt} · ${report.totalSeconds.toFixed(0)} s · \`${report.command}\``,
    '',
    `- Host: ${env.host}; load average ${env.load} (shared machine: compare systems within this run, as ratios)`,
    `- Node ${env.node}; ${env.temporal}; Redis ${env.redis}; ${Object.entries(env.packages)
      .map(([name, version]) => `${name} ${version}`)
      .join(', ')}`,
    `- Temporal server of ours: ${env.server}`,
    ...Object.entries(env.settings).map(([key, value]) => `- ${key}: ${value}`),
    '- Systems: **ours-api** (HTTP API + worker processes + the Temporal server above), **ours-direct** (same workflow started with ' +
      '@temporalio/client, same worker, no API), **temporal-floor** (the engine floor: a workflow that sleeps and runs one local ' +
      'activity, no search attributes or handlers, its own worker, the same server), **bullmq** (delayed jobs on Redis, worker process POSTs the callback), ' +
      '**settimeout** (one process, a timer per task, no durability). One receiver process records every callback.',
    '',
  ];
  if (report.errors.length > 0) lines.push('## Errors', '', ...report.errors.map((e) => `- ${e}`), '');
  if (report.targets.length > 0) {
    lines.push('## Targets', '', '| goal | measured | ratio | met |', '|---|---|---|---|');
    for (const t of report.targets)
      lines.push(`| ${t.goal} | ${t.measured} | ${t.ratio ?? 'n/d'} | ${t.met ? 'yes' : 'no'} |`);
    lines.push('');
  }
  lines.push('## Summary per system', '', ...table(report.summary), '');
  lines.push(
    'created/s: `create` (64 clients); delivered/s: `herd`; lag: `steady` at the headline rate; lag at 20/s: `lag`; dup, lost, late: sums over all scenarios; peak RSS: highest of any scenario, per process.',
    'lost: acknowledged tasks never delivered although the wait ran until everything due had arrived elsewhere; late: due tasks not delivered when a bounded wait ended (for Temporal a backlog, not a loss: the benchmark restarts the stack rather than wait it out). n/d: not determined; n/a: does not apply.',
    '',
  );
  for (const scenario of report.scenarios) {
    lines.push(
      `## ${scenario.title}`,
      '',
      `${scenario.seconds.toFixed(0)} s. ${Object.entries(scenario.params)
        .map(([k, v]) => `${k}: ${v}`)
        .join('; ')}.`,
      '',
    );
    lines.push(...table(scenario.rows), '', ...scenario.notes.map((note) => `- ${note}`), '');
  }
  return lines.join('\n');
}

function table(rows: readonly SystemRow[]): string[] {
  const has = (pick: (r: SystemRow) => unknown) => rows.some((r) => pick(r) !== undefined);
  const columns: [string, (r: SystemRow) => string][] = [['system', (r) => r.system]];
  if (has((r) => r.createdPerSec)) columns.push(['created/s', (r) => fmt(r.createdPerSec)]);
  if (has((r) => r.deliveredPerSec)) columns.push(['delivered/s', (r) => fmt(r.deliveredPerSec)]);
  if (has((r) => r.lagMs)) {
    for (const p of ['p50', 'p95', 'p99', 'max'] as const)
      columns.push([`lag ${p}`, (r) => (r.lagMs ? ms(r.lagMs[p]) : 'n/a')]);
  }
  if (has((r) => r.duplicates)) columns.push(['dup', (r) => fmt(r.duplicates)]);
  if (has((r) => r.lost)) columns.push(['lost', (r) => fmt(r.lost)]);
  if (has((r) => r.late)) columns.push(['late', (r) => fmt(r.late)]);
  if (has((r) => r.peakRssMiB)) columns.push(['peak RSS MiB', (r) => roles(r.peakRssMiB)]);
  if (has((r) => r.cpuMsPerTask)) columns.push(['CPU ms/task', (r) => roles(r.cpuMsPerTask)]);
  if (has((r) => r.dbOpsPerTask)) columns.push(['DB ops/task', (r) => fmt(r.dbOpsPerTask)]);
  if (has((r) => r.dbBusy)) columns.push(['DB busy', (r) => fmt(r.dbBusy)]);
  if (has((r) => r.enginePerTask))
    columns.push([
      'engine/task: history · visibility · matching · WFT · frontend',
      (r) =>
        r.enginePerTask
          ? [
              r.enginePerTask.historyWrites,
              r.enginePerTask.visibilityWrites,
              r.enginePerTask.matchingDispatches,
              r.enginePerTask.workflowTasks,
              r.enginePerTask.frontendCalls,
            ].join(' · ')
          : 'n/a',
    ]);
  const extras = [...new Set(rows.flatMap((r) => Object.keys(r.extra ?? {})))];
  for (const key of extras)
    columns.push([key, (r) => fmt(r.extra && key in r.extra ? r.extra[key] : undefined)]);
  const cells = rows.map((r) =>
    r.notApplicable
      ? [r.system, `n/a: ${r.notApplicable}`, ...columns.slice(2).map(() => '')]
      : columns.map(([, get]) => get(r)),
  );
  return [
    `| ${columns.map(([name]) => name).join(' | ')} |`,
    `|${columns.map(() => '---').join('|')}|`,
    ...cells.map((c) => `| ${c.join(' | ')} |`),
  ];
}

function fmt(value: string | number | null | undefined): string {
  if (value === undefined) return 'n/a';
  if (value === null) return 'n/d';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'n/d';
  return value;
}

function ms(value: number | null | undefined): string {
  if (value === undefined) return 'n/a';
  if (value === null || !Number.isFinite(value)) return 'n/d';
  return value >= 10_000 ? `${(value / 1000).toFixed(1)} s` : `${Math.round(value)} ms`;
}

function roles(values: Record<string, number> | undefined): string {
  if (!values) return 'n/a';
  return Object.entries(values)
    .map(
      ([role, value]) =>
        `${role} ${Number.isFinite(value) ? (value >= 100 ? Math.round(value) : value) : 'n/d'}`,
    )
    .join(' · ');
}

const round2 = (value: number) => Math.round(value * 100) / 100;
