/**
 * The schedule routes: recurring tasks on Temporal Schedules. Every route declares its scope
 * (`schedules:read` or `schedules:write`), params, query, body and responses. A call acts on the
 * key's owner's schedules; an admin key may name another owner with `?owner=`.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { absentBodyAsEmpty } from '../../http/json-body.js';
import Type from 'typebox';
import type { FastifyRequest } from 'fastify';
import { accessFor, hasScope, listAccess, type Principal } from '../../auth/principal.js';
import { errorResponses } from '../../contract/common.js';
import {
  BackfillScheduleBodySchema,
  CreateScheduleBodySchema,
  ListSchedulesQuerySchema,
  ScheduleActionAnswerSchema,
  ScheduleListSchema,
  ScheduleNoteBodySchema,
  ScheduleParamsSchema,
  ScheduleQuerySchema,
  ScheduleSchema,
  TriggerScheduleBodySchema,
  UpdateScheduleBodySchema,
  type Schedule,
  type ScheduleActionAnswer,
} from '../../contract/schedules.js';
import type { ScheduleService } from '../../schedules/service.js';
import { withOccurrencesFor } from '../../schedules/views.js';

export interface ScheduleRoutesOptions {
  schedules: ScheduleService;
}

const errors = errorResponses();

/**
 * A schedule as the caller may see it: its task's payload and URL only with schedules:read, its
 * recent occurrences (task ids and statuses) only with tasks:read.
 */
function visibleTo(principal: Principal, schedule: Schedule): ScheduleActionAnswer {
  const shown = withOccurrencesFor(principal, schedule);
  if (hasScope(principal, 'schedules:read')) return shown;
  const { payload: _payload, callbackUrl: _url, ...task } = shown.task;
  return { ...shown, task };
}

/** The audit line's task fields and the log line of a call that changed a schedule. */
function record(request: FastifyRequest, schedule: Schedule, message: string): void {
  Object.assign(request.audit, {
    owner: schedule.owner,
    taskType: schedule.task.taskType,
    callbackUrl: schedule.task.callbackUrl,
  });
  request.log.info(
    { scheduleId: schedule.scheduleId, owner: schedule.owner, taskType: schedule.task.taskType },
    message,
  );
}

const single = { params: ScheduleParamsSchema, querystring: ScheduleQuerySchema };

export const scheduleRoutes: FastifyPluginAsyncTypebox<ScheduleRoutesOptions> = async (
  app,
  { schedules },
) => {
  app.post(
    '/api/v1/schedules',
    {
      config: { scope: 'schedules:write' },
      schema: {
        operationId: 'createSchedule',
        tags: ['schedules'],
        summary: 'Create a recurring task',
        description:
          "Created for the API key's owner. Each occurrence is one task (GET /api/v1/tasks/{taskId}), its id `<scheduleId>-<nominal time>`. Idempotent on scheduleId per owner: the same body answers 200 with the schedule; a different one 409 SCHEDULE_CONFLICT. 400 INVALID_ARGUMENT names the field for an invalid cron, unknown time zone, interval below the minimum, end before start, a spec that never fires; 409 SCHEDULE_LIMIT_EXCEEDED over the owner's number of schedules.",
        body: CreateScheduleBodySchema,
        response: { 200: ScheduleActionAnswerSchema, 201: ScheduleActionAnswerSchema, ...errors },
      },
    },
    async (request, reply) => {
      const { schedule, created } = await schedules.create(request.principal, request.body);
      record(request, schedule, created ? 'schedule created' : 'schedule exists');
      if (!created) return reply.code(200).send(visibleTo(request.principal, schedule));
      return reply
        .code(201)
        .header('location', `/api/v1/schedules/${encodeURIComponent(schedule.scheduleId)}`)
        .send(visibleTo(request.principal, schedule));
    },
  );

  app.get(
    '/api/v1/schedules',
    {
      config: { scope: 'schedules:read' },
      schema: {
        operationId: 'listSchedules',
        tags: ['schedules'],
        summary: 'List schedules, by id',
        querystring: ListSchedulesQuerySchema,
        response: { 200: ScheduleListSchema, ...errors },
      },
    },
    async (request) => {
      const { owner, ...query } = request.query;
      // Only what a get would answer: the key's task types and callback hosts (a page may hold fewer).
      return schedules.list(listAccess(request.principal, owner), query);
    },
  );

  app.get(
    '/api/v1/schedules/:scheduleId',
    {
      config: { scope: 'schedules:read' },
      schema: {
        operationId: 'getSchedule',
        tags: ['schedules'],
        summary: 'Look up a schedule: its next run times and recent occurrences',
        ...single,
        response: { 200: ScheduleSchema, ...errors },
      },
    },
    async (request) =>
      withOccurrencesFor(
        request.principal,
        await schedules.get(accessFor(request.principal, request.query.owner), request.params.scheduleId),
      ),
  );

  app.patch(
    '/api/v1/schedules/:scheduleId',
    {
      config: { scope: 'schedules:write' },
      schema: {
        operationId: 'updateSchedule',
        tags: ['schedules'],
        summary: 'Change a schedule',
        description:
          "The fields given replace the schedule's (task as a whole). The result is checked as a create is before it takes effect: a refused update changes nothing. Occurrences already started keep their task.",
        ...single,
        body: UpdateScheduleBodySchema,
        response: { 200: ScheduleActionAnswerSchema, ...errors },
      },
    },
    async (request) => {
      const schedule = await schedules.update(
        accessFor(request.principal, request.query.owner),
        request.params.scheduleId,
        request.body,
      );
      record(request, schedule, 'schedule updated');
      return visibleTo(request.principal, schedule);
    },
  );

  for (const verb of ['pause', 'resume'] as const) {
    app.post(
      `/api/v1/schedules/:scheduleId/${verb}`,
      {
        config: { scope: 'schedules:write' },
        schema: {
          operationId: `${verb}Schedule`,
          tags: ['schedules'],
          summary:
            verb === 'pause'
              ? 'Pause a schedule: no run starts until it is resumed'
              : 'Resume a paused schedule: runs missed while paused do not start',
          description:
            'The note is kept with the paused state (GET shows it). Pausing a paused schedule or resuming an active one changes only the note. Occurrences already started run on; cancel them as tasks.',
          ...single,
          body: Type.Optional(ScheduleNoteBodySchema),
          response: { 200: ScheduleActionAnswerSchema, ...errors },
        },
        preValidation: absentBodyAsEmpty,
      },
      async (request) => {
        const access = accessFor(request.principal, request.query.owner);
        const note = request.body?.note;
        const schedule =
          verb === 'pause'
            ? await schedules.pause(access, request.params.scheduleId, note)
            : await schedules.resume(access, request.params.scheduleId, note);
        record(request, schedule, verb === 'pause' ? 'schedule paused' : 'schedule resumed');
        return visibleTo(request.principal, schedule);
      },
    );
  }

  app.post(
    '/api/v1/schedules/:scheduleId/trigger',
    {
      config: { scope: 'schedules:write' },
      schema: {
        operationId: 'triggerSchedule',
        tags: ['schedules'],
        summary: 'Start one occurrence now',
        description:
          'One occurrence with nominal time now, also when the schedule is paused; it appears in recentOccurrences within a moment.',
        ...single,
        body: Type.Optional(TriggerScheduleBodySchema),
        response: { 200: ScheduleActionAnswerSchema, ...errors },
      },
      preValidation: absentBodyAsEmpty,
    },
    async (request) => {
      const schedule = await schedules.trigger(
        accessFor(request.principal, request.query.owner),
        request.params.scheduleId,
        request.body ?? {},
      );
      record(request, schedule, 'schedule triggered');
      return visibleTo(request.principal, schedule);
    },
  );

  app.post(
    '/api/v1/schedules/:scheduleId/backfill',
    {
      config: { scope: 'schedules:write' },
      schema: {
        operationId: 'backfillSchedule',
        tags: ['schedules'],
        summary: 'Start the occurrences of a past time range',
        description:
          "One occurrence for each run time of the spec in the range, with its nominal time, as if it had run then (also when paused). Counts as one request per run time against the key's rate limit (429, nothing started, when they do not all fit). A run time that has an occurrence already (an earlier backfill of the same range) is not started again: its id is taken. 400 when the range is reversed, in the future or holds more runs than the configured maximum.",
        ...single,
        body: BackfillScheduleBodySchema,
        response: { 200: ScheduleActionAnswerSchema, ...errors },
      },
    },
    async (request, reply) => {
      // Each run is a task started: the key's rate limit counts every one, and the audit line says how many.
      const schedule = await schedules.backfill(
        accessFor(request.principal, request.query.owner),
        request.params.scheduleId,
        request.body,
        async (runs) => {
          request.audit.runs = runs;
          await app.chargeKey(request, reply, runs);
        },
      );
      record(request, schedule, 'schedule backfilled');
      return visibleTo(request.principal, schedule);
    },
  );

  app.delete(
    '/api/v1/schedules/:scheduleId',
    {
      config: { scope: 'schedules:write' },
      schema: {
        operationId: 'deleteSchedule',
        tags: ['schedules'],
        summary: 'Delete a schedule',
        description:
          'No further occurrence starts. Occurrences already started are tasks and run on (cancel them as tasks). The id may then be used again.',
        ...single,
        response: { 204: Type.Null({ description: 'Deleted' }), ...errors },
      },
    },
    async (request, reply) => {
      const schedule = await schedules.delete(
        accessFor(request.principal, request.query.owner),
        request.params.scheduleId,
      );
      record(request, schedule, 'schedule deleted');
      return reply.code(204).send(null);
    },
  );
};
