/**
 * The backlog's shape over time, as server-rendered SVG charts with a table each: what comes due
 * (the next hour by minute, the next 24 hours by hour), what closed per hour by outcome with the
 * failure rate, and fire lag and attempts per type from Prometheus. Every bar links to its tasks.
 */
import type { Bucket } from '../charts/buckets.js';
import type { ChartData } from '../charts/data.js';
import { OUTCOMES } from '../charts/data.js';
import type { LagPanel } from '../charts/prometheus.js';
import { renderBarChart, type Bar } from '../charts/svg.js';
import { html, type Html } from '../html.js';

/** Whose tasks the charts count: one owner's (every owner's for an admin who names none), one type's. */
export interface ChartScopeView {
  owner: string | undefined;
  taskType: string | undefined;
  /** A limited key's task types (names or prefixes ending in `*`): only those are counted. */
  taskTypes?: readonly string[] | undefined;
}

/** A `datetime-local` value (UTC, as the console's forms read them) of a bucket boundary. */
const local = (at: Date) => at.toISOString().slice(0, 16);
const hhmm = (at: Date) => at.toISOString().slice(11, 16);

function tasksHref(scope: ChartScopeView, params: Record<string, string>): string {
  const query = new URLSearchParams(params);
  if (scope.taskType) query.set('taskType', scope.taskType);
  if (scope.owner) query.set('owner', scope.owner);
  return `/console/tasks?${query.toString()}`;
}

/** The forecast's second series: schedule occurrences, which become tasks only when they fire. */
export const OCCURRENCES = 'OCCURRENCES';

function dueBars(
  buckets: NonNullable<ChartData['dueByMinute']>,
  occurrences: Bucket[] | undefined,
  scope: ChartScopeView,
): Bar[] {
  return buckets.map((bucket, i) => ({
    label: hhmm(bucket.start),
    title: `${bucket.start.toISOString()} – ${bucket.end.toISOString()}`,
    segments: [
      { series: 'SCHEDULED', value: bucket.count },
      ...(occurrences ? [{ series: OCCURRENCES, value: occurrences[i]?.count ?? 0 }] : []),
    ],
    href: tasksHref(scope, {
      status: 'SCHEDULED',
      dueAfter: local(bucket.start),
      dueBefore: local(bucket.end),
    }),
  }));
}

const unavailable = (id: string, title: string) =>
  html`<p class="muted" data-chart-unavailable="${id}">
    ${title}: too many busy buckets to count within this page's query budget; the table of tasks has them.
  </p>`;

export function chartsSection(data: ChartData, lag: LagPanel | undefined, scope: ChartScopeView): Html {
  const types = scope.taskTypes ? `this key's task types (${scope.taskTypes.join(', ')})` : 'every task type';
  const whose = `${scope.taskType ? `task type ${scope.taskType}` : types}, ${
    scope.owner ? `owner ${scope.owner}` : 'every owner'
  }`;
  const upcoming = data.occurrences;
  const apart = upcoming
    ? ` Apart from them, ${OCCURRENCES}: the next run times of ${upcoming.truncated ? `the first ${upcoming.schedules}` : upcoming.schedules} active schedule(s) as Temporal describes them (each schedule's next 10 runs).`
    : '';
  const due = (
    id: string,
    title: string,
    step: string,
    buckets: ChartData['dueByMinute'],
    occurrences: Bucket[] | undefined,
    every: number,
  ) =>
    buckets
      ? renderBarChart({
          id,
          title,
          description: `SCHEDULED tasks of ${whose} by due time, one bar per ${step} (UTC).${apart}`,
          series: upcoming ? ['SCHEDULED', OCCURRENCES] : ['SCHEDULED'],
          bars: dueBars(buckets, occurrences, scope),
          labelEvery: every,
        })
      : unavailable(id, title);
  const minute = due(
    'due-by-minute',
    'Coming due in the next hour, by minute',
    'minute',
    data.dueByMinute,
    upcoming?.byMinute,
    10,
  );
  const hour = due(
    'due-by-hour',
    'Coming due in the next 24 hours, by hour',
    'hour',
    data.dueByHour,
    upcoming?.byHour,
    3,
  );
  const outcomes = data.outcomes
    ? renderBarChart({
        id: 'outcomes-by-hour',
        title: 'Closed in the last 24 hours, by hour and outcome',
        description: `Tasks of ${whose} that ended SUCCEEDED, FAILED or CANCELLED, one stacked bar per hour (UTC); the line is the failure rate, FAILED / (SUCCEEDED + FAILED).`,
        series: [...OUTCOMES],
        bars: data.outcomes.map((hourly) => ({
          label: hhmm(hourly.start),
          title: `${hourly.start.toISOString()} – ${hourly.end.toISOString()}`,
          segments: OUTCOMES.map((status) => ({ series: status, value: hourly.counts[status] })),
          href: tasksHref(scope, { closedAfter: local(hourly.start), closedBefore: local(hourly.end) }),
        })),
        line: {
          name: 'failure rate',
          values: data.outcomes.map(({ counts }) => {
            const finished = counts.SUCCEEDED + counts.FAILED;
            return finished === 0 ? null : counts.FAILED / finished;
          }),
        },
        labelEvery: 3,
      })
    : unavailable('outcomes-by-hour', 'Closed in the last 24 hours');
  return html`<section class="charts" data-charts-queries="${data.queries}">
    <h2>Backlog over time</h2>
    <p class="muted">
      ${whose}; counted through Temporal visibility at
      <time datetime="${data.computedAt.toISOString()}">${data.computedAt.toISOString()}</time> (kept 15 s,
      ${data.queries} count queries). Click a bar for its tasks.
    </p>
    ${minute} ${hour} ${outcomes} ${lagSection(lag)}
  </section>`;
}

/** In place of the charts for a key limited to callback hosts: visibility cannot count by host. */
export function chartsWithheld(): Html {
  return html`<section class="charts" data-charts="withheld">
    <h2>Backlog over time</h2>
    <p class="muted">
      Not shown for a key limited to callback hosts: the charts are counted through Temporal visibility, which
      cannot tell tasks apart by callback host. The task list shows the tasks this key may see.
    </p>
  </section>`;
}

function seconds(value: number | null): string {
  if (value === null) return '–';
  return value < 1 ? `${Math.round(value * 1000)} ms` : `${value.toFixed(2)} s`;
}

function lagSection(lag: LagPanel | undefined): Html | string {
  if (lag === undefined) {
    return html`<p class="muted" id="lag-panel" data-lag="admins-only">
      Fire lag and attempts per type come from the workers' metrics, which are not per owner: admin keys
      without task-type or callback-host limits see them.
    </p>`;
  }
  if (!lag.ok) {
    return html`<p class="muted" id="lag-panel" data-lag="hidden">
      Fire lag and attempts per type: hidden, ${lag.reason}. Set PROMETHEUS_URL to a Prometheus that scrapes
      the workers (docker-compose's does).
    </p>`;
  }
  const outcomes = [...new Set(lag.types.flatMap((type) => Object.keys(type.attempts)))].sort();
  return html`<h3>Fire lag and attempts per type (last hour, from Prometheus)</h3>
    <table id="lag-panel" data-lag="shown">
      <thead>
        <tr>
          <th>Task type</th>
          <th>Fire lag p50</th>
          <th>Fire lag p99</th>
          ${outcomes.map((outcome) => html`<th>Attempts: ${outcome}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${lag.types.map(
          (type) =>
            html`<tr data-lag-type="${type.taskType}">
              <td>${type.taskType}</td>
              <td>${seconds(type.p50Seconds)}</td>
              <td>${seconds(type.p99Seconds)}</td>
              ${outcomes.map((outcome) => html`<td>${type.attempts[outcome] ?? 0}</td>`)}
            </tr>`,
        )}
        ${
          lag.types.length === 0
            ? html`<tr>
                <td colspan="3">No callbacks in the last hour.</td>
              </tr>`
            : ''
        }
      </tbody>
    </table>`;
}
