/**
 * The console's pages, as functions of what the task service answered. Every value goes through
 * `html`, which escapes it; the pages carry no inline script or style (the CSP forbids both).
 */
import type { BatchJob, Task, TaskList } from '../contract/tasks.js';
import type { FieldProblem } from '../validation.js';
import { html, type Html } from './html.js';

export interface Viewer {
  /** Key id, or null when authentication is off. */
  keyId: string | null;
  owner: string;
  canWrite: boolean;
  isAdmin: boolean;
  /** Authentication is on: a session exists and can be ended. */
  loggedIn: boolean;
  csrfToken: string;
}

export const STATUSES = ['SCHEDULED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED'] as const;

export function layout(title: string, viewer: Viewer | undefined, body: Html): string {
  return `<!doctype html>${
    html`<html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · delayed tasks</title>
        <link rel="stylesheet" href="/console/static/console.css" />
        <script src="/console/static/console.js" defer></script>
      </head>
      <body>
        <header>
          <a href="/console"><b>Delayed tasks</b></a>
          <a href="/console">Overview</a>
          <a href="/console/tasks">Tasks</a>
          <a href="/console/tasks?status=FAILED">Dead letters</a>
          ${viewer?.isAdmin && viewer.canWrite ? html`<a href="/console/bulk">Bulk</a>` : ''}
          ${viewer ? whoAmI(viewer) : ''}
        </header>
        <main>${body}</main>
      </body>
    </html>`.text
  }`;
}

function whoAmI(viewer: Viewer): Html {
  const role = viewer.isAdmin ? 'admin' : viewer.canWrite ? 'read-write' : 'read-only';
  return html`<span class="who" data-role="${role}"
    >${viewer.keyId ? `key ${viewer.keyId}` : 'authentication off'} · owner ${viewer.owner} · ${role}
    ${
      viewer.loggedIn
        ? html`<form method="post" action="/console/logout">
            ${csrf(viewer)}<button type="submit">Log out</button>
          </form>`
        : ''
    }</span
  >`;
}

export function csrf(viewer: Pick<Viewer, 'csrfToken'>): Html {
  return html`<input type="hidden" name="_csrf" value="${viewer.csrfToken}" />`;
}

export function loginPage(csrfToken: string, error?: string): string {
  return layout(
    'Log in',
    undefined,
    html`<h1>Log in</h1>
      <p>
        Paste an API key (<code>dts_&lt;keyId&gt;_&lt;secret&gt;</code>). It stays on the server; your browser
        keeps only a session cookie.
      </p>
      ${error ? html`<p class="errors" role="alert">${error}</p>` : ''}
      <form method="post" action="/console/login">
        ${csrf({ csrfToken })}
        <label>API key <input type="password" name="key" autocomplete="off" required size="60" /></label>
        <button type="submit">Log in</button>
      </form>`,
  );
}

export function errorPage(viewer: Viewer | undefined, status: number, code: string, message: string): string {
  return layout(
    `Error ${status}`,
    viewer,
    html`<h1>${status} ${code}</h1>
      <p class="errors" role="alert">${message}</p>
      <p><a href="/console">Back to the overview</a></p>`,
  );
}

export interface Overview {
  byStatus: Record<string, number> | undefined;
  overdue: number | undefined;
  byType: { taskType: string; counts: Record<string, number> }[];
  sampled: number;
  refreshedAt: string;
}

export function overviewPage(viewer: Viewer, overview: Overview): string {
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
                Namespace-wide counts need an admin key; the table below covers your owner's tasks.
              </p>`
        }
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
                <td><a href="/console/tasks?taskType=${encodeURIComponent(taskType)}">${taskType}</a></td>
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

export interface ListFilters {
  status?: string | undefined;
  taskType?: string | undefined;
  idPrefix?: string | undefined;
  /** `datetime-local` values, read as UTC. */
  dueAfter?: string | undefined;
  dueBefore?: string | undefined;
  /** Admins only: one owner's tasks (default: every owner's). */
  owner?: string | undefined;
}

/**
 * The bulk action that acts on exactly the tasks a list filter shows, if there is one: the bulk
 * endpoints take a task type and a status (every owner), not an id prefix, a due range or an owner.
 */
export function bulkFor(
  filters: ListFilters,
): { operation: 'replay' | 'cancel'; status: string; taskType: string } | undefined {
  if (!filters.taskType || filters.idPrefix || filters.dueAfter || filters.dueBefore || filters.owner)
    return undefined;
  if (filters.status === 'FAILED' || filters.status === 'CANCELLED')
    return { operation: 'replay', status: filters.status, taskType: filters.taskType };
  if (filters.status === 'SCHEDULED' || filters.status === 'RUNNING')
    return { operation: 'cancel', status: filters.status, taskType: filters.taskType };
  return undefined;
}

function bulkLink(viewer: Viewer, filters: ListFilters): Html | string {
  if (!viewer.isAdmin || !viewer.canWrite) return '';
  const bulk = bulkFor(filters);
  if (!bulk) {
    return html`<p class="muted" id="bulk-unavailable">
      Bulk actions take one task type and a status (FAILED or CANCELLED to replay, SCHEDULED or RUNNING to
      cancel) over every owner, and no id prefix, due range or owner: set exactly those to act on this list in
      bulk.
    </p>`;
  }
  return html`<p>
    <a id="bulk-link" href="/console/bulk?${new URLSearchParams(bulk).toString()}"
      >${bulk.operation === 'replay' ? 'Replay' : 'Cancel'} every task of this filter…</a
    >
  </p>`;
}

export function tasksPage(
  viewer: Viewer,
  filters: ListFilters,
  list: TaskList,
  nextUrl: string | undefined,
): string {
  const deadLetters = filters.status === 'FAILED';
  return layout(
    deadLetters ? 'Dead letters' : 'Tasks',
    viewer,
    html`<h1>${deadLetters ? 'Dead letters (FAILED tasks)' : 'Tasks'}</h1>
      <form class="filters" method="get" action="/console/tasks">
        <label
          >Status
          <select name="status">
            <option value="">any</option>
            ${STATUSES.map(
              (s) => html`<option value="${s}" ${filters.status === s ? html`selected` : ''}>${s}</option>`,
            )}
          </select></label
        >
        <label>Task type <input name="taskType" value="${filters.taskType ?? ''}" /></label>
        <label>Task id prefix <input name="idPrefix" value="${filters.idPrefix ?? ''}" /></label>
        ${
          viewer.isAdmin
            ? html`<label
                >Owner <input name="owner" value="${filters.owner ?? ''}" placeholder="every owner"
              /></label>`
            : ''
        }
        <label
          >Due after (UTC) <input type="datetime-local" name="dueAfter" value="${filters.dueAfter ?? ''}"
        /></label>
        <label
          >Due before (UTC) <input type="datetime-local" name="dueBefore" value="${filters.dueBefore ?? ''}"
        /></label>
        <button type="submit">Filter</button>
      </form>
      <p class="muted">
        Newest first, 50 a page; every filter is applied by the server. Due range: from (inclusive) to
        (exclusive). ${viewer.isAdmin ? 'An id prefix searches one owner: the one named, or yours.' : ''}
      </p>
      ${bulkLink(viewer, filters)}
      <table id="tasks">
        <thead>
          <tr>
            <th>Task</th>
            <th>Type</th>
            <th>Status</th>
            <th>Due (UTC)</th>
            <th>Attempts</th>
            ${
              deadLetters
                ? html`<th>Status code</th>
                    <th>Last error</th>`
                : html`<th>Last error</th>`
            }
          </tr>
        </thead>
        <tbody>
          ${list.tasks.map(
            (task) =>
              html`<tr data-task-id="${task.taskId}">
                <td>
                  <a href="${taskUrl(task.taskId, task.owner, viewer)}">${task.taskId}</a
                  >${task.owner !== viewer.owner ? html` <span class="muted">(${task.owner})</span>` : ''}
                </td>
                <td>${task.taskType}</td>
                <td class="status status-${task.status}">${task.status}</td>
                <td>${task.executeAt ?? ''}</td>
                <td>${task.attempts}</td>
                ${deadLetters ? html`<td>${task.lastError?.statusCode ?? ''}</td>` : ''}
                <td class="last-error">${task.lastError?.message ?? ''}</td>
              </tr>`,
          )}
          ${
            list.tasks.length === 0
              ? html`<tr>
                  <td colspan="7">No tasks match.</td>
                </tr>`
              : ''
          }
        </tbody>
      </table>
      ${nextUrl ? html`<p><a rel="next" href="${nextUrl}">Next page →</a></p>` : ''}`,
  );
}

export function taskUrl(taskId: string, owner: string, viewer: Pick<Viewer, 'owner'>, suffix = ''): string {
  const path = `/console/tasks/${encodeURIComponent(taskId)}${suffix}`;
  return owner === viewer.owner ? path : `${path}?owner=${encodeURIComponent(owner)}`;
}

export function taskPage(
  viewer: Viewer,
  task: Task,
  options: {
    temporalUiUrl: string | undefined;
    namespace: string;
    workflowId: string;
    flash?: string | undefined;
  },
): string {
  const canCancel = viewer.canWrite && (task.status === 'SCHEDULED' || task.status === 'RUNNING');
  const canReschedule = viewer.canWrite && task.status === 'SCHEDULED';
  const canReplay = viewer.canWrite && (task.status === 'FAILED' || task.status === 'CANCELLED');
  const ui = options.temporalUiUrl
    ? `${options.temporalUiUrl}/namespaces/${encodeURIComponent(options.namespace)}/workflows/${encodeURIComponent(options.workflowId)}`
    : undefined;
  const fields: [string, unknown][] = [
    ['Task id', task.taskId],
    ['Owner', task.owner],
    ['Task type', task.taskType],
    ['Status', task.status],
    ['Due (executeAt)', task.executeAt],
    ['Created', task.createdAt],
    ['Callback URL', task.callbackUrl],
    ['Payload version', task.payloadVersion],
    ['Max retries', task.maxRetries],
    ['Timeout', `${task.timeoutMs} ms`],
    ['Priority', task.priority],
    ['Trace id', task.traceId],
    ['Attempts', task.attempts],
    ['Last error', task.lastError?.message ?? null],
    ['Last status code', task.lastError?.statusCode ?? null],
    ['Next attempt', task.nextAttemptAt],
    ['Fired', task.firedAt],
    ['Completed', task.completedAt],
  ];
  return layout(
    `Task ${task.taskId}`,
    viewer,
    html`<h1>
        Task ${task.taskId} <span class="status status-${task.status}" id="task-status">${task.status}</span>
      </h1>
      ${options.flash ? html`<p class="flash" role="status">${options.flash}</p>` : ''}
      <p>
        ${ui ? html`<a href="${ui}" rel="noopener" target="_blank">Open its workflow in the Temporal Web UI</a> (full history, every attempt)` : html`<span class="muted">Set TEMPORAL_UI_URL to link the Temporal Web UI.</span>`}
      </p>
      <dl>
        ${fields.map(
          ([name, value]) =>
            html`<dt>${name}</dt>
              <dd>${value === null || value === undefined ? '–' : String(value)}</dd>`,
        )}
      </dl>
      ${attemptHistory(task)}
      <h2>Payload</h2>
      <pre class="payload">${JSON.stringify(task.payload, null, 2)}</pre>
      ${
        viewer.canWrite
          ? html`<h2>Actions</h2>
              <div class="actions">
                ${
                  canCancel
                    ? html`<form
                        method="post"
                        action="${taskUrl(task.taskId, task.owner, viewer, '/cancel')}"
                      >
                        ${csrf(viewer)} <label>Reason <input name="reason" required /></label
                        ><button type="submit">Cancel task</button>
                      </form>`
                    : ''
                }
                ${
                  canReschedule
                    ? html`<form
                        method="post"
                        action="${taskUrl(task.taskId, task.owner, viewer, '/reschedule')}"
                      >
                        ${csrf(viewer)}
                        <label
                          >New time, UTC
                          <input
                            type="datetime-local"
                            name="executeAt"
                            step="1"
                            required
                            value="${(task.executeAt ?? '').slice(0, 19)}"
                        /></label>
                        <label>Reason <input name="reason" required /></label
                        ><button type="submit">Reschedule</button>
                      </form>`
                    : ''
                }
                ${canReplay ? html`<p><a href="${taskUrl(task.taskId, task.owner, viewer, '/replay')}">Replay this task…</a></p>` : ''}
                ${!canCancel && !canReschedule && !canReplay ? html`<p class="muted">No action applies to a ${task.status} task.</p>` : ''}
              </div>`
          : html`<p class="muted">Read-only: this key has no tasks:write scope.</p>`
      }`,
  );
}

function attemptHistory(task: Task): Html {
  const history = task.attemptHistory;
  if (!history) {
    return html`<h2>Attempts</h2>
      <p class="muted" id="attempts-unknown">
        The worker that answered keeps no attempt history: see the workflow in the Temporal Web UI.
      </p>`;
  }
  const dropped = task.attempts - history.length;
  return html`<h2>Attempts</h2>
    ${dropped > 0 ? html`<p class="muted">The ${dropped} oldest attempt(s) are not kept here.</p>` : ''}
    <table id="attempts">
      <thead>
        <tr>
          <th>#</th>
          <th>Started (UTC)</th>
          <th>Took</th>
          <th>Outcome</th>
          <th>Status code</th>
          <th>Error</th>
        </tr>
      </thead>
      <tbody>
        ${history.map(
          (a) =>
            html`<tr data-attempt="${a.attempt}">
              <td>${a.attempt}</td>
              <td>${a.startedAt}</td>
              <td>${Date.parse(a.finishedAt) - Date.parse(a.startedAt)} ms</td>
              <td class="outcome outcome-${a.outcome}">${a.outcome}</td>
              <td>${a.statusCode ?? '–'}</td>
              <td class="attempt-error">${a.error ?? ''}</td>
            </tr>`,
        )}
        ${
          history.length === 0
            ? html`<tr>
                <td colspan="6">No attempt yet.</td>
              </tr>`
            : ''
        }
      </tbody>
    </table>`;
}

export interface ReplayForm {
  payload: string;
  payloadVersion: string;
  maxRetries: string;
  reason: string;
}

export function replayPage(viewer: Viewer, task: Task, form: ReplayForm, problems: FieldProblem[]): string {
  const problemsOf = (field: string) =>
    problems.filter(
      (p) => p.field === field || p.field.startsWith(`${field}.`) || p.field.startsWith(`${field}[`),
    );
  const fieldErrors = (field: string) =>
    problemsOf(field).map((p) => html`<p class="error" data-field="${p.field}">${p.field} ${p.reason}</p>`);
  return layout(
    `Replay ${task.taskId}`,
    viewer,
    html`<h1>Replay task ${task.taskId} <span class="status status-${task.status}">${task.status}</span></h1>
      <p>
        <a href="${taskUrl(task.taskId, task.owner, viewer)}">← back to the task</a> · last error:
        <span class="last-error">${task.lastError?.message ?? '–'}</span>
      </p>
      ${
        problems.length > 0
          ? html`<div class="errors" role="alert" id="replay-errors">
              <p>Nothing was replayed:</p>
              <ul>
                ${problems.map((p) => html`<li>${p.field} ${p.reason}</li>`)}
              </ul>
            </div>`
          : ''
      }
      <form method="post" action="${taskUrl(task.taskId, task.owner, viewer, '/replay')}" id="replay-form">
        ${csrf(viewer)}
        <div class="side">
          <div>
            <h2>Original payload (version ${task.payloadVersion})</h2>
            <pre class="payload" id="original-payload">${JSON.stringify(task.payload, null, 2)}</pre>
          </div>
          <div>
            <h2>Payload to send</h2>
            <label for="payload">JSON object</label>
            <textarea id="payload" name="payload" spellcheck="false">${form.payload}</textarea
            >${fieldErrors('payload')}
          </div>
        </div>
        <label
          >payloadVersion
          <input type="number" name="payloadVersion" min="1" value="${form.payloadVersion}" /></label
        >${fieldErrors('payloadVersion')}
        <label>maxRetries <input type="number" name="maxRetries" min="0" value="${form.maxRetries}" /></label
        >${fieldErrors('maxRetries')}
        <label
          >Reason (required, written to the audit log)
          <input name="reason" required size="60" value="${form.reason}" /></label
        >${fieldErrors('reason')}
        <button type="submit">Replay now</button>
        <p class="muted">Same task id, same Idempotency-Key; a new run starts now.</p>
      </form>`,
  );
}

export function bulkPage(
  viewer: Viewer,
  filter: { operation: 'replay' | 'cancel'; taskType: string; status: string },
  matched: number | undefined,
  problems: FieldProblem[],
): string {
  return layout(
    'Bulk',
    viewer,
    html`<h1>Bulk replay or cancel</h1>
      ${problems.length > 0 ? html`<div class="errors" role="alert">${problems.map((p) => html`<p>${p.field} ${p.reason}</p>`)}</div>` : ''}
      <form method="get" action="/console/bulk" class="filters">
        <label
          >Operation
          <select name="operation">
            <option value="replay" ${filter.operation === 'replay' ? html`selected` : ''}>
              replay (FAILED or CANCELLED)
            </option>
            <option value="cancel" ${filter.operation === 'cancel' ? html`selected` : ''}>
              cancel (SCHEDULED or RUNNING)
            </option>
          </select></label
        >
        <label>Status <input name="status" value="${filter.status}" placeholder="FAILED" /></label>
        <label>Task type <input name="taskType" value="${filter.taskType}" required /></label>
        <button type="submit">Count matching tasks</button>
      </form>
      ${
        matched === undefined
          ? ''
          : html`<p id="bulk-count">
                <b>${matched}</b> task(s) match ${filter.operation} with status ${filter.status || 'default'}
                and task type ${filter.taskType}.
              </p>
              <form method="post" action="/console/bulk">
                ${csrf(viewer)}
                <input type="hidden" name="operation" value="${filter.operation}" />
                <input type="hidden" name="status" value="${filter.status}" />
                <input type="hidden" name="taskType" value="${filter.taskType}" />
                <label>Reason (required) <input name="reason" required size="60" /></label>
                <button type="submit">Run ${filter.operation} on these ${matched} task(s)</button>
              </form>`
      }`,
  );
}

export function batchPage(viewer: Viewer, job: BatchJob): string {
  const done = job.state !== 'RUNNING';
  return layout(
    `Batch ${job.jobId}`,
    viewer,
    html`<h1>Batch ${job.jobId}</h1>
      <div ${done ? '' : html`data-refresh="2"`}>
        <dl>
          <dt>Operation</dt>
          <dd>${job.operation}</dd>
          <dt>State</dt>
          <dd id="batch-state">${job.state}</dd>
          <dt>Matched</dt>
          <dd>${job.matched ?? '–'}</dd>
          <dt>Completed</dt>
          <dd id="batch-completed">${job.completed ?? '–'}</dd>
          <dt>Failed</dt>
          <dd>${job.failed ?? '–'}</dd>
          <dt>Started</dt>
          <dd>${job.startedAt ?? '–'}</dd>
          <dt>Closed</dt>
          <dd>${job.closedAt ?? '–'}</dd>
        </dl>
        ${done ? '' : html`<p class="muted">Running; this page follows it (reload without JavaScript).</p>`}
      </div>`,
  );
}
