/** The task list and one task's page. */
import type { Task, TaskList } from '../../contract/tasks.js';
import { html, type Html } from '../html.js';
import { csrf, layout, STATUSES, type Viewer } from './layout.js';

export interface ListFilters {
  status?: string | undefined;
  taskType?: string | undefined;
  idPrefix?: string | undefined;
  /** `datetime-local` values, read as UTC. */
  dueAfter?: string | undefined;
  dueBefore?: string | undefined;
  /** `datetime-local` values, read as UTC: tasks that closed in this range (an outcomes chart bar). */
  closedAfter?: string | undefined;
  closedBefore?: string | undefined;
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
  if (
    !filters.taskType ||
    filters.idPrefix ||
    filters.dueAfter ||
    filters.dueBefore ||
    filters.closedAfter ||
    filters.closedBefore ||
    filters.owner
  )
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
        ${
          filters.closedAfter || filters.closedBefore
            ? html`<input type="hidden" name="closedAfter" value="${filters.closedAfter ?? ''}" /><input
                  type="hidden"
                  name="closedBefore"
                  value="${filters.closedBefore ?? ''}"
                />`
            : ''
        }
        <button type="submit">Filter</button>
      </form>
      ${
        filters.closedAfter || filters.closedBefore
          ? html`<p id="closed-range">
              Closed from ${filters.closedAfter ?? 'any time'} to ${filters.closedBefore ?? 'now'} (UTC).
              <a href="/console/tasks">Clear every filter</a>
            </p>`
          : ''
      }
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

/** A broker task's target in words: the declared broker, the destination and how it is written there. */
function brokerTarget(delivery: Extract<Task['delivery'], { mode: 'broker' }>, taskType: string): string {
  const broker = `${delivery.kind} broker ${delivery.broker} →`;
  switch (delivery.kind) {
    case 'redis-streams':
      return `${broker} stream ${delivery.stream ?? ''}${delivery.maxLen !== undefined ? `, MAXLEN ~ ${delivery.maxLen}` : ''}`;
    case 'rabbitmq':
      return `${broker} ${delivery.exchange ? `exchange ${delivery.exchange}` : 'the default exchange'}, routing key ${delivery.routingKey ?? `${taskType} (the task type)`}`;
    case 'kafka':
      return `${broker} topic ${delivery.topic ?? ''}, keyed by ${delivery.key !== undefined ? `payload field ${delivery.key}` : 'the idempotency key'}`;
  }
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
    ...(task.delivery?.mode === 'pull'
      ? ([
          ['Delivery', `pull queue ${task.delivery.queue}, lease ${task.delivery.leaseSeconds} s`],
          [
            'Lease',
            task.lease
              ? `held by ${task.lease.workerIdentity ?? 'a worker'} until ${task.lease.expiresAt}`
              : 'none held',
          ],
        ] satisfies [string, unknown][])
      : task.delivery?.mode === 'broker'
        ? // A broker task: the declared broker and its destination; its last error is the broker's.
          ([['Target', brokerTarget(task.delivery, task.taskType)]] satisfies [string, unknown][])
        : ([['Callback URL', task.callbackUrl]] satisfies [string, unknown][])),
    ['Payload version', task.payloadVersion],
    ['Max retries', task.maxRetries],
    // A pull task's attempt lasts as long as its lease (the Delivery row), not the callback timeout.
    ...(task.delivery?.mode === 'pull'
      ? []
      : ([['Timeout', `${task.timeoutMs} ms`]] satisfies [string, unknown][])),
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
