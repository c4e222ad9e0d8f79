/** The task list, one task, and the actions on it: cancel, reschedule, replay with changes. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  accessFor,
  ANONYMOUS,
  hasScope,
  listOwner,
  readableTask,
  visibleTasks,
} from '../../auth/principal.js';
import { ReplayBodySchema, type ListTasksQuery } from '../../contract/tasks.js';
import { ApiError, ErrorCode } from '../../errors/catalog.js';
import { workflowIdOf } from '../../shared/owner.js';
import { createAjv, toFieldProblems, type FieldProblem } from '../../validation/json-schema.js';
import type { ConsoleContext, Form } from '../context.js';
import { parseReplayForm, utcTime } from '../forms.js';
import type { ReplayForm } from '../views/actions.js';
import { replayPage } from '../views/actions.js';
import { taskPage, tasksPage, taskUrl, type ListFilters } from '../views/tasks.js';

export function consoleTaskRoutes(app: FastifyInstance, ctx: ConsoleContext): void {
  const { tasks, config, page, viewerOf, audit, requireWrite, reasonOf, validateList } = ctx;
  const validateReplay = createAjv().compile(ReplayBodySchema);
  app.get('/console/tasks', async (request, reply) => {
    const raw = request.query as Form;
    const principal = request.viewer?.principal ?? ANONYMOUS;
    const admin = hasScope(principal, 'admin');
    const filters: ListFilters = {
      status: raw.status || undefined,
      taskType: raw.taskType?.trim() || undefined,
      idPrefix: raw.idPrefix?.trim() || undefined,
      dueAfter: raw.dueAfter || undefined,
      dueBefore: raw.dueBefore || undefined,
      closedAfter: raw.closedAfter || undefined,
      closedBefore: raw.closedBefore || undefined,
      // Task ids are unique per owner: an admin's id prefix searches one owner, their own unless named.
      owner: admin ? raw.owner?.trim() || (raw.idPrefix?.trim() ? principal.owner : undefined) : undefined,
    };
    const query: Record<string, unknown> = {};
    for (const key of ['status', 'taskType', 'idPrefix', 'owner'] as const)
      if (filters[key]) query[key] = filters[key];
    if (raw.pageToken) query.pageToken = raw.pageToken;
    const problems: FieldProblem[] = [];
    // The time inputs are datetime-local, read as UTC (the page says so).
    for (const key of ['dueAfter', 'dueBefore'] as const) {
      const value = filters[key];
      if (!value) continue;
      const at = utcTime(value);
      if (at === undefined) problems.push({ field: key, reason: 'is not a date and time' });
      else query[key] = new Date(at).toISOString();
    }
    // A bar of the outcomes chart: the tasks that closed in its hour (a console filter, not the API's).
    const closed: { from?: number; to?: number } = {};
    for (const [key, end] of [
      ['closedAfter', 'from'],
      ['closedBefore', 'to'],
    ] as const) {
      const value = filters[key];
      if (!value) continue;
      const at = utcTime(value);
      if (at === undefined) problems.push({ field: key, reason: 'is not a date and time' });
      else closed[end] = at;
    }
    if (!validateList(query)) problems.push(...toFieldProblems(validateList.errors));
    if (problems.length > 0) {
      throw new ApiError(
        ErrorCode.InvalidArgument,
        problems.map((d) => `${d.field} ${d.reason}`).join('; '),
        problems,
      );
    }
    const { owner, ...rest } = query as ListTasksQuery;
    const list = await tasks.visibility.list(
      listOwner(principal, owner),
      rest,
      filters.closedAfter || filters.closedBefore ? closed : undefined,
    );
    let nextUrl: string | undefined;
    if (list.nextPageToken) {
      const params = new URLSearchParams();
      for (const [key, value] of Object.entries(filters)) if (value) params.set(key, value);
      params.set('pageToken', list.nextPageToken);
      nextUrl = `/console/tasks?${params.toString()}`;
    }
    // The list API's rule: a key limited to some task types or callback hosts lists only those.
    const visible = { ...list, tasks: visibleTasks(principal, list.tasks) };
    return page(reply, tasksPage(viewerOf(request, reply), filters, visible, nextUrl));
  });

  type TaskRequest = FastifyRequest<{
    Params: { taskId: string };
    Querystring: { owner?: string; replayed?: string };
  }>;
  const accessOf = (request: TaskRequest) =>
    accessFor(request.viewer?.principal ?? ANONYMOUS, request.query.owner || undefined);
  /**
   * The task as this key may read it: another owner's, or one outside the key's task types or callback
   * hosts, answers 404 exactly as an absent one. Every page and action on one task starts here.
   */
  const readTask = async (request: TaskRequest) => {
    const access = accessOf(request);
    return {
      access,
      task: readableTask(access, await tasks.reader.task(access.owner, request.params.taskId)),
    };
  };

  app.get('/console/tasks/:taskId', async (request: TaskRequest, reply) => {
    const { task } = await readTask(request);
    return page(
      reply,
      taskPage(viewerOf(request, reply), task, {
        temporalUiUrl: config.console.temporalUiUrl,
        namespace: config.temporal.namespace,
        workflowId: workflowIdOf(task.owner, task.taskId),
        flash: request.query.replayed ? 'Replayed: a new run of this task has started.' : undefined,
      }),
    );
  });

  app.post('/console/tasks/:taskId/cancel', async (request: TaskRequest, reply) => {
    requireWrite(request);
    const reason = reasonOf(request.body as Form);
    const { access } = await readTask(request);
    const task = await tasks.commands.cancel(access, request.params.taskId);
    audit(request, 'cancel', { taskId: task.taskId, owner: task.owner, reason, outcome: 'ok' });
    return reply.redirect(taskUrl(task.taskId, task.owner, access), 303);
  });

  app.post('/console/tasks/:taskId/reschedule', async (request: TaskRequest, reply) => {
    requireWrite(request);
    const form = request.body as Form;
    const reason = reasonOf(form);
    const at = utcTime(form.executeAt ?? '');
    if (at === undefined)
      throw new ApiError(ErrorCode.InvalidArgument, 'executeAt is not a date and time', [
        { field: 'executeAt', reason: 'is not a date and time' },
      ]);
    const { access } = await readTask(request);
    const task = await tasks.commands.reschedule(access, request.params.taskId, {
      executeAt: new Date(at).toISOString(),
    });
    audit(request, 'reschedule', { taskId: task.taskId, owner: task.owner, reason, outcome: 'ok' });
    return reply.redirect(taskUrl(task.taskId, task.owner, access), 303);
  });

  app.get('/console/tasks/:taskId/replay', async (request: TaskRequest, reply) => {
    const { task } = await readTask(request);
    const form: ReplayForm = {
      payload: JSON.stringify(task.payload, null, 2),
      payloadVersion: String(task.payloadVersion),
      maxRetries: String(task.maxRetries),
      reason: '',
    };
    return page(reply, replayPage(viewerOf(request, reply), task, form, []));
  });

  app.post('/console/tasks/:taskId/replay', async (request: TaskRequest, reply) => {
    requireWrite(request);
    const raw = request.body as Form;
    const form: ReplayForm = {
      payload: raw.payload ?? '',
      payloadVersion: raw.payloadVersion ?? '',
      maxRetries: raw.maxRetries ?? '',
      reason: raw.reason ?? '',
    };
    const { access, task: previous } = await readTask(request);
    const { body, problems } = parseReplayForm(form, config.limits.maxPayloadDepth);
    if (problems.length === 0 && !validateReplay(body))
      problems.push(...toFieldProblems(validateReplay.errors));
    if (problems.length === 0) {
      try {
        const task = await tasks.commands.replay(access, request.params.taskId, body);
        audit(request, 'replay', {
          taskId: task.taskId,
          owner: task.owner,
          reason: form.reason.trim(),
          outcome: 'ok',
        });
        return reply.redirect(
          `${taskUrl(task.taskId, task.owner, access)}${task.owner === access.owner && !request.query.owner ? '?' : '&'}replayed=1`,
          303,
        );
      } catch (err) {
        // Refusals (not found, not this key's) are error pages; only the form's own problems stay on it.
        if (!(err instanceof ApiError) || err.status >= 500 || err.status === 404 || err.status === 403)
          throw err;
        problems.push(
          ...(err.details && err.details.length > 0
            ? err.details
            : [{ field: 'request', reason: err.message }]),
        );
      }
    }
    audit(request, 'replay', {
      taskId: request.params.taskId,
      owner: access.owner,
      reason: form.reason.trim(),
      outcome: 'INVALID_ARGUMENT',
    });
    return page(reply, replayPage(viewerOf(request, reply), previous, form, problems), 400);
  });
}
