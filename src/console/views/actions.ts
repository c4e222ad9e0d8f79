/** The forms that act on tasks: replay one with changes, and bulk actions with their batch job. */
import type { Task } from '../../contract/tasks.js';
import type { BatchJob } from '../../contract/batches.js';
import type { FieldProblem } from '../../validation/json-schema.js';
import { html } from '../html.js';
import { csrf, layout, type Viewer } from './layout.js';
import { taskUrl } from './tasks.js';

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
