/**
 * The schedules pages and the actions on one schedule: pause, resume (with a note) and trigger. The
 * pages need schedules:read and the actions schedules:write, as the API's schedule routes do; a key
 * sees its owner's schedules within its task types and callback hosts only (the schedule domain's
 * list and get, as the API's), an admin key any owner's.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { accessFor, ANONYMOUS, hasScope, listAccess } from '../../auth/principal.js';
import {
  ListSchedulesQuerySchema,
  ScheduleNoteBodySchema,
  ScheduleParamsSchema,
  type ListSchedulesQuery,
} from '../../contract/schedules.js';
import { ApiError, ErrorCode } from '../../errors/catalog.js';
import type { ScheduleService } from '../../schedules/service.js';
import { withOccurrencesFor } from '../../schedules/views.js';
import { createAjv, toFieldProblems } from '../../validation/json-schema.js';
import type { ConsoleContext, Form } from '../context.js';
import { schedulePage, schedulesPage, scheduleUrl, type ScheduleFilters } from '../views/schedules.js';

type ScheduleRequest = FastifyRequest<{
  Params: { scheduleId: string };
  Querystring: { owner?: string; done?: string };
}>;

const FLASH: Record<string, string> = {
  pause: 'Paused: no occurrence starts until it is resumed.',
  resume: 'Resumed: the next runs below start on time.',
  trigger: 'Triggered: one occurrence has started now (see the recent occurrences).',
};

export function consoleScheduleRoutes(
  app: FastifyInstance,
  ctx: ConsoleContext & { schedules: ScheduleService },
): void {
  const { schedules, page, viewerOf, audit, requireWrite, reasonOf } = ctx;
  const ajv = createAjv({ coerceTypes: true, useDefaults: true });
  const validateList = ajv.compile(ListSchedulesQuerySchema);
  const validateParams = ajv.compile(ScheduleParamsSchema);
  const validateNote = createAjv().compile(ScheduleNoteBodySchema);

  const invalid = (errors: Parameters<typeof toFieldProblems>[0]) => {
    const problems = toFieldProblems(errors);
    return new ApiError(
      ErrorCode.InvalidArgument,
      problems.map((p) => `${p.field} ${p.reason}`).join('; '),
      problems,
    );
  };

  app.get('/console/schedules', async (request, reply) => {
    requireWrite(request, 'schedules:read');
    const raw = request.query as Form;
    const principal = request.viewer?.principal ?? ANONYMOUS;
    const filters: ScheduleFilters = {
      taskType: raw.taskType?.trim() || undefined,
      paused: raw.paused === 'true' || raw.paused === 'false' ? raw.paused : undefined,
      owner: hasScope(principal, 'admin') ? raw.owner?.trim() || undefined : undefined,
    };
    const query: Record<string, unknown> = {};
    for (const key of ['taskType', 'paused', 'owner'] as const) if (filters[key]) query[key] = filters[key];
    if (raw.pageToken) query.pageToken = raw.pageToken;
    if (!validateList(query)) throw invalid(validateList.errors);
    const { owner, ...rest } = query as ListSchedulesQuery;
    // As GET /api/v1/schedules: only what a get would answer (the key's types and callback hosts).
    const list = await schedules.list(listAccess(principal, owner), rest);
    let nextUrl: string | undefined;
    if (list.nextPageToken) {
      const params = new URLSearchParams();
      for (const [key, value] of Object.entries(filters)) if (value) params.set(key, value);
      params.set('pageToken', list.nextPageToken);
      nextUrl = `/console/schedules?${params.toString()}`;
    }
    return page(reply, schedulesPage(viewerOf(request, reply), filters, list, nextUrl));
  });

  /** The owner and limits a request acts with, its schedule id checked as the API checks it. */
  const accessOf = (request: ScheduleRequest) => {
    if (!validateParams(request.params)) throw invalid(validateParams.errors);
    return accessFor(request.viewer?.principal ?? ANONYMOUS, request.query.owner || undefined);
  };

  app.get('/console/schedules/:scheduleId', async (request: ScheduleRequest, reply) => {
    requireWrite(request, 'schedules:read');
    const principal = request.viewer?.principal ?? ANONYMOUS;
    const schedule = withOccurrencesFor(
      principal,
      await schedules.get(accessOf(request), request.params.scheduleId),
    );
    const flash = FLASH[request.query.done ?? ''];
    return page(reply, schedulePage(viewerOf(request, reply), schedule, flash));
  });

  const noteOf = (form: Form): string => {
    const note = form.note?.trim() ?? '';
    if (note === '')
      throw new ApiError(ErrorCode.InvalidArgument, 'note is required', [
        { field: 'note', reason: 'is required' },
      ]);
    if (!validateNote({ note })) throw invalid(validateNote.errors);
    return note;
  };

  const done = (request: ScheduleRequest, owner: string, action: string) => {
    const viewer = { owner: request.viewer?.principal.owner ?? ANONYMOUS.owner };
    const url = scheduleUrl(request.params.scheduleId, owner, viewer);
    return `${url}${url.includes('?') ? '&' : '?'}done=${action}`;
  };

  for (const action of ['pause', 'resume'] as const) {
    app.post(`/console/schedules/:scheduleId/${action}`, async (request: ScheduleRequest, reply) => {
      requireWrite(request, 'schedules:write');
      const note = noteOf(request.body as Form);
      const access = accessOf(request);
      const schedule = await schedules[action](access, request.params.scheduleId, note);
      audit(request, `schedule.${action}`, {
        scheduleId: schedule.scheduleId,
        owner: schedule.owner,
        reason: note,
        outcome: 'ok',
      });
      return reply.redirect(done(request, schedule.owner, action), 303);
    });
  }

  app.post('/console/schedules/:scheduleId/trigger', async (request: ScheduleRequest, reply) => {
    requireWrite(request, 'schedules:write');
    const reason = reasonOf(request.body as Form);
    const access = accessOf(request);
    const schedule = await schedules.trigger(access, request.params.scheduleId, {});
    audit(request, 'schedule.trigger', {
      scheduleId: schedule.scheduleId,
      owner: schedule.owner,
      reason,
      outcome: 'ok',
    });
    return reply.redirect(done(request, schedule.owner, 'trigger'), 303);
  });
}
