/** The fault matrix's report: one table row per scenario, the notes, and the soak's minutes. */
import type { Outcome } from './outcome.js';
import type { SoakResult } from './special.js';

export interface FaultsReport {
  mode: 'full' | 'short';
  date: string;
  durationSeconds: number;
  host: string;
  command: string;
  outcomes: readonly Outcome[];
  soak: SoakResult | undefined;
}

const ms = (value: number | undefined) => (value === undefined ? '-' : `${Math.round(value)}`);
const mib = (value: number | undefined) => (value === undefined ? '-' : value.toFixed(0));

export function renderFaults(report: FaultsReport): string {
  const lines = [
    `# Fault matrix (${report.mode})`,
    '',
    `${report.date}, ${report.durationSeconds} s, \`${report.command}\`; ${report.host}.`,
    '',
    'Lost = acknowledged creates never delivered. Duplicates = effects beyond the first per task at the',
    'receiver (allowed only where at-least-once allows them). Lag = due time to first delivery. Recovery',
    '= end of the fault until every task due before it was delivered.',
    '',
    '| # | scenario | created | delivered | lost | not SUCCEEDED | duplicates (allowed) | same key | create retries | 5xx to creates (answered in p50 / max ms) | lag p50 / p99 / max ms | recovery s | result |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const o of report.outcomes) {
    lines.push(
      `| ${o.id} | ${o.title} | ${o.created} | ${o.delivered} | ${o.lost} | ${o.notSucceeded} | ${o.duplicates} (${o.duplicatesAllowed ? 'yes' : 'no'}) | ${o.keysStable ? 'yes' : 'NO'} | ${o.createRetries} | ${o.refusals} (${ms(o.refusalMs?.p50)} / ${ms(o.refusalMs?.max)}) | ${ms(o.lagMs?.p50)} / ${ms(o.lagMs?.p99)} / ${ms(o.lagMs?.max)} | ${o.recoverySeconds?.toFixed(1) ?? '-'} | ${o.problems.length === 0 ? 'pass' : `FAIL: ${o.problems.join('; ')}`} |`,
    );
  }
  const noted = report.outcomes.filter((o) => o.notes.length > 0);
  if (noted.length > 0) {
    lines.push('', 'Observed:');
    for (const o of noted) lines.push(`- scenario ${o.id}: ${o.notes.join('; ')}`);
  }
  const soak = report.soak;
  if (soak) {
    const roles = Object.keys(soak.minutes[0]?.rssMiB ?? {});
    lines.push(
      '',
      `## Soak: ${soak.rate} tasks/s for ${soak.minutes.length} min`,
      '',
      `RSS slope after the first minute (MiB/min): ${roles.map((role) => `${role} ${soak.rssSlopeMiBPerMin[role]?.toFixed(2) ?? '-'}`).join(', ')}; lag p99 slope ${soak.lagP99SlopeMsPerMin?.toFixed(1) ?? '-'} ms/min.`,
      '',
      `| minute | first deliveries | lag p50 ms | lag p99 ms | load 1 min | ${roles.map((role) => `${role} RSS MiB`).join(' | ')} |`,
      `|---|---|---|---|---|${roles.map(() => '---|').join('')}`,
      ...soak.minutes.map(
        (m) =>
          `| ${m.minute} | ${m.delivered} | ${ms(m.lagP50Ms)} | ${ms(m.lagP99Ms)} | ${m.load1.toFixed(1)} | ${roles.map((role) => mib(m.rssMiB[role])).join(' | ')} |`,
      ),
    );
  }
  return `${lines.join('\n')}\n`;
}
