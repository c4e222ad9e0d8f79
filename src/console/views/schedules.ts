/**
 * The schedules pages: the list, and one schedule with its spec in words, its next run times (as
 * Temporal's describe lists them), its paused state and note, its recent occurrences (each a task,
 * linked) and the pause, resume and trigger forms for a key with schedules:write.
 */
import type { Schedule, ScheduleList } from '../../contract/schedules.js';
import { CRON_MACROS } from '../../shared/cron-macros.js';
import { html, type Html } from '../html.js';
import { csrf, layout, type Viewer } from './layout.js';
import { taskUrl } from './tasks.js';

export interface ScheduleFilters {
  taskType?: string | undefined;
  /** 'true', 'false' or undefined (any). */
  paused?: string | undefined;
  /** Admins only: one owner's schedules (default: every owner's). */
  owner?: string | undefined;
}

export function scheduleUrl(
  scheduleId: string,
  owner: string,
  viewer: Pick<Viewer, 'owner'>,
  suffix = '',
): string {
  const path = `/console/schedules/${encodeURIComponent(scheduleId)}${suffix}`;
  return owner === viewer.owner ? path : `${path}?owner=${encodeURIComponent(owner)}`;
}

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** A cron expression in words for its common shapes; the expression itself for any other. */
export function cronInWords(cron: string): string {
  const fields = (CRON_MACROS[cron.trim()] ?? cron.trim()).split(/\s+/);
  if (fields.length !== 5) return `on cron ${cron}`;
  const [minute, hour, day, month, weekday] = fields as [string, string, string, string, string];
  const number = /^\d+$/;
  const pad = (value: string) => value.padStart(2, '0');
  const everyDay = day === '*' && month === '*';
  if (everyDay && weekday === '*') {
    if (minute === '*' && hour === '*') return 'every minute';
    const step = /^\*\/(\d+)$/.exec(minute);
    if (step && hour === '*') return `every ${step[1]} minutes`;
    if (number.test(minute) && hour === '*') return `every hour at minute ${minute}`;
    if (number.test(minute) && number.test(hour)) return `every day at ${pad(hour)}:${pad(minute)}`;
  }
  if (everyDay && number.test(minute) && number.test(hour) && /^[0-6]$/.test(weekday))
    return `every ${WEEKDAYS[Number(weekday)]} at ${pad(hour)}:${pad(minute)}`;
  if (month === '*' && weekday === '*' && [minute, hour, day].every((f) => number.test(f)))
    return `on day ${day} of every month at ${pad(hour)}:${pad(minute)}`;
  if (month === '1' && day === '1' && weekday === '*' && number.test(minute) && number.test(hour))
    return `every 1 January at ${pad(hour)}:${pad(minute)}`;
  return `on cron ${cron}`;
}

/** The whole spec in one sentence: when, in which zone, within which bounds. */
export function specInWords(schedule: Schedule): string {
  const when = schedule.cron
    ? `${cronInWords(schedule.cron)} (${schedule.cron})`
    : `every ${schedule.every ?? '?'}${schedule.phase ? `, offset by ${schedule.phase}` : ''}`;
  const parts = [`${when}, time zone ${schedule.timeZone}`];
  if (schedule.jitter) parts.push(`each run delayed by up to ${schedule.jitter} at random`);
  if (schedule.startAt) parts.push(`from ${schedule.startAt}`);
  if (schedule.endAt) parts.push(`until ${schedule.endAt}`);
  if (schedule.maxRuns !== null)
    parts.push(`at most ${schedule.maxRuns} runs (${schedule.remainingRuns ?? 0} left)`);
  return `Runs ${parts.join('; ')}.`;
}

export function schedulesPage(
  viewer: Viewer,
  filters: ScheduleFilters,
  list: ScheduleList,
  nextUrl: string | undefined,
): string {
  return layout(
    'Schedules',
    viewer,
    html`<h1>Schedules</h1>
      <form class="filters" method="get" action="/console/schedules">
        <label>Task type <input name="taskType" value="${filters.taskType ?? ''}" /></label>
        <label
          >State
          <select name="paused">
            <option value="">any</option>
            <option value="false" ${filters.paused === 'false' ? html`selected` : ''}>active</option>
            <option value="true" ${filters.paused === 'true' ? html`selected` : ''}>paused</option>
          </select></label
        >
        ${viewer.isAdmin ? html`<label>Owner <input name="owner" value="${filters.owner ?? ''}" /></label>` : ''}
        <button type="submit">Filter</button>
      </form>
      <table id="schedules">
        <thead>
          <tr>
            <th>Schedule</th>
            <th>Owner</th>
            <th>Task type</th>
            <th>Spec</th>
            <th>Time zone</th>
            <th>State</th>
            <th>Next run</th>
          </tr>
        </thead>
        <tbody>
          ${list.schedules.map(
            (s) =>
              html`<tr data-schedule-id="${s.scheduleId}">
                <td><a href="${scheduleUrl(s.scheduleId, s.owner, viewer)}">${s.scheduleId}</a></td>
                <td>${s.owner}</td>
                <td>${s.taskType}</td>
                <td>${s.cron ? cronInWords(s.cron) : `every ${s.every ?? '?'}`}</td>
                <td>${s.timeZone}</td>
                <td>${s.paused ? html`<span class="status status-CANCELLED">paused</span>` : 'active'}</td>
                <td>${s.nextRunTime ?? '–'}</td>
              </tr>`,
          )}
          ${
            list.schedules.length === 0
              ? html`<tr>
                  <td colspan="7">No schedules.</td>
                </tr>`
              : ''
          }
        </tbody>
      </table>
      ${nextUrl ? html`<p><a href="${nextUrl}">Next page</a></p>` : ''}`,
  );
}

export function schedulePage(viewer: Viewer, schedule: Schedule, flash?: string): string {
  const url = (suffix: string) => scheduleUrl(schedule.scheduleId, schedule.owner, viewer, suffix);
  const fields: [string, unknown][] = [
    ['Owner', schedule.owner],
    ['Task type', schedule.task.taskType],
    ['Time zone', schedule.timeZone],
    ['Overlap', schedule.overlap],
    ['Catch-up window', schedule.catchupWindow],
    ['Pause on failure', schedule.pauseOnFailure ? 'yes' : 'no'],
    ['Callback URL', schedule.task.callbackUrl],
    ['Occurrences started', schedule.occurrencesStarted],
    ['Skipped by overlap', schedule.skippedByOverlap],
    ['Missed the catch-up window', schedule.missedCatchupWindow],
    ['Created', schedule.createdAt],
    ['Updated', schedule.updatedAt],
  ];
  return layout(
    `Schedule ${schedule.scheduleId}`,
    viewer,
    html`<h1>
        Schedule ${schedule.scheduleId}
        <span
          class="status ${schedule.paused ? 'status-CANCELLED' : 'status-SCHEDULED'}"
          id="schedule-state"
          data-paused="${String(schedule.paused)}"
          >${schedule.paused ? 'paused' : 'active'}</span
        >
      </h1>
      ${flash ? html`<p class="flash" role="status">${flash}</p>` : ''}
      <p id="schedule-spec">${specInWords(schedule)}</p>
      <p id="schedule-note">
        Note: ${schedule.note ? html`<q>${schedule.note}</q>` : html`<span class="muted">none</span>`}
      </p>
      <dl>
        ${fields.map(
          ([name, value]) =>
            html`<dt>${name}</dt>
              <dd>${value === null || value === undefined ? '–' : String(value)}</dd>`,
        )}
      </dl>
      <h2>Next runs</h2>
      <p class="muted">As Temporal lists them (UTC)${schedule.paused ? '; none fires while paused' : ''}.</p>
      <ol id="next-runs">
        ${schedule.nextRunTimes.map((time) => html`<li><time datetime="${time}">${time}</time></li>`)}
      </ol>
      ${schedule.nextRunTimes.length === 0 ? html`<p class="muted">No further runs.</p>` : ''}
      <h2>Recent occurrences</h2>
      <table id="occurrences">
        <thead>
          <tr>
            <th>Task</th>
            <th>Nominal time</th>
            <th>Started</th>
            <th>Outcome</th>
          </tr>
        </thead>
        <tbody>
          ${[...schedule.recentOccurrences].reverse().map(
            (o) =>
              html`<tr data-task-id="${o.taskId}">
                <td><a href="${taskUrl(o.taskId, schedule.owner, viewer)}">${o.taskId}</a></td>
                <td>${o.scheduledAt}</td>
                <td>${o.startedAt}</td>
                <td>
                  ${o.status ? html`<span class="status status-${o.status}">${o.status}</span>` : html`<span class="muted">not yet listed</span>`}
                </td>
              </tr>`,
          )}
          ${
            schedule.recentOccurrences.length === 0
              ? html`<tr>
                  <td colspan="4">None yet.</td>
                </tr>`
              : ''
          }
        </tbody>
      </table>
      <h2>Payload of each occurrence</h2>
      <pre class="payload">${JSON.stringify(schedule.task.payload, null, 2)}</pre>
      ${actions(viewer, schedule, url)}`,
  );
}

function actions(viewer: Viewer, schedule: Schedule, url: (suffix: string) => string): Html {
  if (viewer.schedules !== 'write')
    return html`<p class="muted" id="schedule-read-only">
      Read-only: this key has no schedules:write scope.
    </p>`;
  const toggle = schedule.paused ? 'resume' : 'pause';
  return html`<h2>Actions</h2>
    <div class="actions">
      <form method="post" action="${url(`/${toggle}`)}" id="${toggle}-form">
        ${csrf(viewer)}
        <label>Note (required, kept on the schedule) <input name="note" required size="50" /></label
        ><button type="submit">${schedule.paused ? 'Resume' : 'Pause'} schedule</button>
      </form>
      <form method="post" action="${url('/trigger')}" id="trigger-form">
        ${csrf(viewer)}
        <label>Reason (required, written to the audit log) <input name="reason" required size="50" /></label
        ><button type="submit">Run one occurrence now</button>
      </form>
    </div>`;
}
