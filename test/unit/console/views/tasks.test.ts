/**
 * The console's views escape every value a task carries: markup in `lastError`, the payload or the
 * task id renders as text.
 */
import { describe, expect, it } from 'vitest';
import type { Task } from '../../../../src/contract/tasks.js';
import { parseReplayForm, utcTime } from '../../../../src/console/forms.js';
import { html } from '../../../../src/console/html.js';
import { replayPage } from '../../../../src/console/views/actions.js';
import type { Viewer } from '../../../../src/console/views/layout.js';
import { bulkFor, taskPage, tasksPage } from '../../../../src/console/views/tasks.js';

const HOSTILE = '<img src=x onerror=alert(1)>';
const ESCAPED = '&lt;img src=x onerror=alert(1)&gt;';

const viewer: Viewer = {
  keyId: 'k1',
  owner: 'orders',
  canWrite: true,
  schedules: 'none',
  isAdmin: false,
  loggedIn: true,
  csrfToken: 'token"><script>',
};

const task: Task = {
  taskId: 'inv-1',
  owner: 'orders',
  taskType: 'invoice.send',
  status: 'FAILED',
  executeAt: '2026-01-01T00:00:00.000Z',
  createdAt: '2026-01-01T00:00:00.000Z',
  payload: { note: HOSTILE },
  payloadVersion: 1,
  callbackUrl: 'https://example.com/hook',
  maxRetries: 3,
  timeoutMs: 10_000,
  traceId: 'trace',
  priority: 0,
  attempts: 4,
  lastError: { message: HOSTILE, statusCode: 500 },
  nextAttemptAt: null,
  firedAt: null,
  completedAt: null,
  attemptHistory: [
    {
      attempt: 4,
      startedAt: '2026-01-01T00:00:10.000Z',
      finishedAt: '2026-01-01T00:00:10.250Z',
      outcome: 'PERMANENT_ERROR',
      statusCode: 500,
      error: HOSTILE,
    },
  ],
};

describe('console views', () => {
  it.each([
    [
      'task page',
      () => taskPage(viewer, task, { temporalUiUrl: undefined, namespace: 'default', workflowId: 'x' }),
    ],
    [
      'dead-letter list',
      () =>
        tasksPage(
          viewer,
          { status: 'FAILED' },
          { tasks: [{ ...task, callbackUrl: task.callbackUrl ?? null }], nextPageToken: null },
          undefined,
        ),
    ],
    [
      'replay panel',
      () =>
        replayPage(
          viewer,
          task,
          { payload: HOSTILE, payloadVersion: '1', maxRetries: '3', reason: HOSTILE },
          [{ field: 'payload', reason: HOSTILE }],
        ),
    ],
  ])('%s renders a hostile lastError as text', (_name, render) => {
    const page = render();
    expect(page).not.toContain(HOSTILE);
    expect(page).toContain(ESCAPED);
    expect(page).not.toContain('<script>');
  });

  it('shows the attempt history, says when older attempts were dropped, and when a run has none', () => {
    const page = taskPage(viewer, task, { temporalUiUrl: undefined, namespace: 'default', workflowId: 'x' });
    expect(page).toContain('<tr data-attempt="4">');
    expect(page).toContain('250 ms');
    expect(page).toContain('The 3 oldest attempt(s) are not kept here.');
    expect(page).not.toContain(HOSTILE);
    const { attemptHistory: _none, ...old } = task;
    const before = taskPage(viewer, old, { temporalUiUrl: undefined, namespace: 'default', workflowId: 'x' });
    expect(before).toContain('id="attempts-unknown"');
  });

  it.each([
    {
      filters: { status: 'FAILED', taskType: 't' },
      bulk: { operation: 'replay', status: 'FAILED', taskType: 't' },
    },
    {
      filters: { status: 'RUNNING', taskType: 't' },
      bulk: { operation: 'cancel', status: 'RUNNING', taskType: 't' },
    },
    { filters: { status: 'FAILED' }, bulk: undefined },
    { filters: { taskType: 't' }, bulk: undefined },
    { filters: { status: 'SUCCEEDED', taskType: 't' }, bulk: undefined },
    { filters: { status: 'FAILED', taskType: 't', idPrefix: 'inv' }, bulk: undefined },
    { filters: { status: 'FAILED', taskType: 't', dueAfter: '2026-01-01T00:00' }, bulk: undefined },
    { filters: { status: 'FAILED', taskType: 't', dueBefore: '2026-01-01T00:00' }, bulk: undefined },
    { filters: { status: 'FAILED', taskType: 't', owner: 'orders' }, bulk: undefined },
  ])('offers bulk on $filters only when the bulk endpoints reproduce it exactly', ({ filters, bulk }) => {
    expect(bulkFor(filters)).toEqual(bulk);
  });

  it('escapes every interpolation, and only html fragments pass as markup', () => {
    expect(html`<p title="${'"x'}">${"<b>'"}</p>`.text).toBe('<p title="&quot;x">&lt;b&gt;&#39;</p>');
    expect(html`<p>${html`<b>${'<i>'}</b>`}</p>`.text).toBe('<p><b>&lt;i&gt;</b></p>');
  });

  it.each([
    { input: '2026-03-01T10:15', expected: Date.UTC(2026, 2, 1, 10, 15) },
    { input: '2026-03-01T10:15:30', expected: Date.UTC(2026, 2, 1, 10, 15, 30) },
    { input: '2026-03-01 10:15', expected: undefined },
    { input: '', expected: undefined },
  ])('reads the datetime-local $input as UTC', ({ input, expected }) => {
    expect(utcTime(input)).toBe(expected);
  });

  it.each([
    { form: { payload: '{', payloadVersion: '', maxRetries: '', reason: 'r' }, fields: ['payload'] },
    { form: { payload: '[1]', payloadVersion: '', maxRetries: '', reason: 'r' }, fields: ['payload'] },
    {
      form: { payload: '{}', payloadVersion: '1.5', maxRetries: 'x', reason: ' ' },
      fields: ['reason', 'payloadVersion', 'maxRetries'],
    },
    { form: { payload: '{"a":1}', payloadVersion: '2', maxRetries: '0', reason: 'fix' }, fields: [] },
    // The API's JSON checks, not a second, laxer parser (each was accepted before).
    {
      form: { payload: '{"__proto__":{"x":1}}', payloadVersion: '', maxRetries: '', reason: 'r' },
      fields: ['payload'],
    },
    {
      form: { payload: '{"amount":1e400}', payloadVersion: '', maxRetries: '', reason: 'r' },
      fields: ['payload.amount'],
    },
    {
      form: { payload: '{"id":9007199254740993}', payloadVersion: '', maxRetries: '', reason: 'r' },
      fields: ['payload.id'],
    },
    {
      form: {
        payload: `{"v":${'['.repeat(5000)}${']'.repeat(5000)}}`,
        payloadVersion: '',
        maxRetries: '',
        reason: 'r',
      },
      fields: ['payload'],
    },
  ])('checks the replay form field by field: $fields', ({ form, fields }) => {
    expect(parseReplayForm(form, 5).problems.map((p) => p.field)).toEqual(fields);
  });
});
