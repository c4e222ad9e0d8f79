/** The overview page: counts now, the charts, and the table per task type. */
import { html, type Html } from '../html.js';
import { layout, STATUSES, type Viewer } from './layout.js';

export interface Overview {
  byStatus: Record<string, number> | undefined;
  overdue: number | undefined;
  byType: { taskType: string; counts: Record<string, number> }[];
  sampled: number;
  refreshedAt: string;
}

export function overviewPage(viewer: Viewer, overview: Overview, charts: Html): string {
  const types = overview.byType;
  return layout(
    'Overview',
    viewer,
    html`<h1>Overview</h1>
      <div data-refresh="15">
        <p class="muted">
          Last refresh:
          <time id="refreshed-at" datetime="${overview.refreshedAt}">${overview.refreshedAt}</time> (UTC;
          refreshes every 15 s with JavaScript, or reload)
        </p>
        ${
          overview.byStatus
            ? html`<div class="cards">
                  ${STATUSES.filter((s) => s in (overview.byStatus ?? {})).map(
                    (status) =>
                      html`<a class="card" href="/console/tasks?status=${status}"
                        ><span class="status status-${status}">${status}</span
                        ><b data-count="${status}">${overview.byStatus?.[status] ?? 0}</b></a
                      >`,
                  )}
                  <div class="card">
                    <span>Overdue (SCHEDULED, due before now)</span
                    ><b data-count="overdue">${overview.overdue ?? 0}</b>
                  </div>
                </div>
                <p class="muted">
                  Every owner's tasks. SCHEDULED, RUNNING and FAILED: now; SUCCEEDED and CANCELLED: closed in
                  the last 24 hours.
                </p>`
            : html`<p class="muted">
                Namespace-wide counts need an admin key without callback-host limits; the table below covers
                the tasks you can see.
              </p>`
        }
        ${charts}
        <h2>Per task type</h2>
        <p class="muted">
          From the newest ${overview.sampled} tasks you can see. Callback lag p50/p99 is in the worker's
          <code>/metrics</code> (not shown here).
        </p>
        <table>
          <thead>
            <tr>
              <th>Task type</th>
              ${STATUSES.map((s) => html`<th>${s}</th>`)}
              <th>Failure rate</th>
            </tr>
          </thead>
          <tbody>
            ${types.map(({ taskType, counts }) => {
              const finished = (counts.SUCCEEDED ?? 0) + (counts.FAILED ?? 0);
              const rate = finished === 0 ? '–' : `${Math.round(((counts.FAILED ?? 0) / finished) * 100)} %`;
              return html`<tr>
                <td><a href="/console/types/${encodeURIComponent(taskType)}">${taskType}</a></td>
                ${STATUSES.map((s) => html`<td>${counts[s] ?? 0}</td>`)}
                <td>${rate}</td>
              </tr>`;
            })}
            ${
              types.length === 0
                ? html`<tr>
                    <td colspan="7">No tasks yet.</td>
                  </tr>`
                : ''
            }
          </tbody>
        </table>
      </div>`,
  );
}

/** One task type's page: its charts and a way to its tasks. */
export function typePage(viewer: Viewer, taskType: string, charts: Html, refreshedAt: string): string {
  return layout(
    taskType,
    viewer,
    html`<h1>Task type <code>${taskType}</code></h1>
      <p>
        <a href="/console/tasks?taskType=${encodeURIComponent(taskType)}">Its tasks</a> ·
        <a href="/console/tasks?taskType=${encodeURIComponent(taskType)}&amp;status=FAILED"
          >its dead letters</a
        >
      </p>
      <div data-refresh="15">
        <p class="muted">
          Last refresh: <time id="refreshed-at" datetime="${refreshedAt}">${refreshedAt}</time> (UTC)
        </p>
        ${charts}
      </div>`,
  );
}
