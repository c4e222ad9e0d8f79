/**
 * The task routes. Every route declares its scope (`config.scope`, checked by src/api/auth.ts), its
 * params, query, body and responses. A call acts on the key's owner's tasks; an admin key may name
 * another owner with `?owner=`.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { absentBodyAsEmpty } from '../../http/json-body.js';
import Type from 'typebox';
import type { FastifyRequest } from 'fastify';
import { checkBulkAccess, readableTask, visibleTasks } from '../../auth/principal.js';
import { createAjv } from '../../validation/json-schema.js';
import { accessFor, listOwner } from '../../auth/principal.js';
import { auditItem, auditRecordOf, auditTask, visibleTo } from '../auth.js';
import { createBatch, type ItemOutcome } from '../batch-create.js';
import type { ApiError } from '../../errors/catalog.js';
import { errorResponses } from '../../contract/common.js';
import {
  TaskActionAnswerSchema,
  CreateTaskBodySchema,
  ListTasksQuerySchema,
  ReplayBodySchema,
  RescheduleBodySchema,
  TaskListSchema,
  TaskParamsSchema,
  TaskQuerySchema,
  TaskSchema,
} from '../../contract/tasks.js';
import {
  BatchJobSchema,
  BatchParamsSchema,
  BulkCancelBodySchema,
  BulkReplayBodySchema,
  CreateTasksBodySchema,
  CreateTasksEnvelopeSchema,
  CreateTasksResultSchema,
  type CreateTasksResult,
} from '../../contract/batches.js';
import type { TaskService } from '../../tasks/service.js';

export interface TaskRoutesOptions {
  tasks: TaskService;
  onCreated?: (taskType: string) => void;
  /** An item of a batch refused (a single create's refusal goes through the app's error handler). */
  onRejected?: (error: ApiError) => void;
  /** Body limit of a batch create, bytes. */
  batchBodyLimit: number;
}

/** The batch body's shape and size; its items are validated one by one (src/api/batch-create.ts). */
const validateBatchEnvelope = createAjv().compile(CreateTasksEnvelopeSchema);

/** The log line of a create, single or one item of a batch. */
function logCreate(
  request: FastifyRequest,
  task: { taskId: string; taskType: string; traceId: string | null; callbackUrl?: string | undefined },
  created: boolean,
  index?: number,
): void {
  request.log.info(
    {
      taskId: task.taskId,
      taskType: task.taskType,
      traceId: task.traceId,
      callbackUrl: task.callbackUrl,
      created,
      ...(index === undefined ? {} : { index }),
    },
    created ? 'task created' : 'task exists',
  );
}

const errors = errorResponses();

export const taskRoutes: FastifyPluginAsyncTypebox<TaskRoutesOptions> = async (
  app,
  { tasks, onCreated, onRejected, batchBodyLimit },
) => {
  /** One item's entry of a batch answer, with the log, audit line and metrics a single create has. */
  const answer = (request: FastifyRequest, outcome: ItemOutcome): CreateTasksResult['results'][number] => {
    const { index, item } = outcome;
    if ('error' in outcome) {
      const { error } = outcome;
      onRejected?.(error);
      auditItem(request, index, error.status, item, { outcome: error.code });
      if (error.status >= 500) request.log.error({ err: error, index }, 'batch item failed');
      else request.log.info({ index, code: error.code, message: error.message }, 'batch item rejected');
      // ErrorBodySchema's code is a union built from a list, which Static<> cannot name: it is ErrorCode.
      const body = error.toBody().error as unknown as NonNullable<
        CreateTasksResult['results'][number]['error']
      >;
      return { index, status: error.status, error: body };
    }
    const { task, created } = outcome.result;
    const status = created ? 201 : 200;
    auditItem(request, index, status, item, auditRecordOf(task));
    logCreate(request, task, created, index);
    if (created) onCreated?.(task.taskType);
    return { index, status, task };
  };

  app.post(
    '/api/v1/tasks',
    {
      config: { scope: 'tasks:write' },
      schema: {
        operationId: 'createTask',
        tags: ['tasks'],
        summary: 'Create a delayed task',
        description:
          "Created for the API key's owner. Idempotent on taskId per owner: the same taskId with the same specification answers 200 with the existing task; with a different one, 409 TASK_CONFLICT. A key limited to some task types or callback hosts gets 403 PERMISSION_DENIED for others.",
        body: CreateTaskBodySchema,
        response: { 200: TaskSchema, 201: TaskSchema, ...errors },
      },
    },
    async (request, reply) => {
      const { task, created } = await tasks.commands.create(request.principal, request.body);
      auditTask(request, task);
      logCreate(request, task, created);
      if (!created) return reply.code(200).send(task);
      onCreated?.(task.taskType);
      return reply
        .code(201)
        .header('location', `/api/v1/tasks/${encodeURIComponent(task.taskId)}`)
        .send(task);
    },
  );

  app.post(
    '/api/v1/tasks/batch',
    {
      config: {
        scope: 'tasks:write',
        numbersCheckedPerItem: true,
        rateLimitCost: (request) => (request.body as { tasks: unknown[] }).tasks.length,
      },
      bodyLimit: batchBodyLimit,
      schema: {
        operationId: 'createTasks',
        tags: ['tasks'],
        summary: 'Create up to 100 delayed tasks in one call',
        description:
          "Each item is a createTask body and is answered on its own, in request order: `status` 201 (created), 200 (an identical task existed) or exactly the error a single create of it answers (400, 403, 409, 413, ...); 503 UNAVAILABLE when Temporal could not be reached (retry those items with the same taskId). A failing item creates nothing; the others go ahead. Items with the same taskId are created in order. An empty list or more than 100 items answers 400 for the whole request and creates nothing; so do authentication (401) and scope (403) failures. Counts as one request per item against the key's rate limit; a batch that does not fit in what remains answers 429 as a whole.",
        body: CreateTasksBodySchema,
        response: { 200: CreateTasksResultSchema, ...errors },
      },
      validatorCompiler: () => validateBatchEnvelope,
    },
    async (request) => {
      const items = request.body.tasks as readonly unknown[];
      const outcomes = await createBatch(tasks.commands, request.principal, items);
      return { results: outcomes.map((outcome) => answer(request, outcome)) };
    },
  );

  app.get(
    '/api/v1/tasks',
    {
      config: { scope: 'tasks:read' },
      schema: {
        operationId: 'listTasks',
        tags: ['tasks'],
        summary: 'List tasks, newest first; status=FAILED is the dead-letter list',
        querystring: ListTasksQuerySchema,
        response: { 200: TaskListSchema, ...errors },
      },
    },
    async (request) => {
      const { owner, ...query } = request.query;
      const page = await tasks.visibility.list(listOwner(request.principal, owner), query);
      // A key limited to some task types or callback hosts lists only those (a page may hold fewer).
      return { ...page, tasks: visibleTasks(request.principal, page.tasks) };
    },
  );

  app.get(
    '/api/v1/tasks/:taskId',
    {
      config: { scope: 'tasks:read' },
      schema: {
        operationId: 'getTask',
        tags: ['tasks'],
        summary: 'Look up a task',
        params: TaskParamsSchema,
        querystring: TaskQuerySchema,
        response: { 200: TaskSchema, ...errors },
      },
    },
    async (request) => {
      const access = accessFor(request.principal, request.query.owner);
      // A key limited to some task types or callback hosts reads only those tasks of its owner; the
      // others answer as absent ones do.
      return readableTask(access, await tasks.reader.task(access.owner, request.params.taskId));
    },
  );

  app.post(
    '/api/v1/tasks/:taskId/cancel',
    {
      config: { scope: 'tasks:write' },
      schema: {
        operationId: 'cancelTask',
        tags: ['tasks'],
        summary: 'Cancel a task',
        description:
          'A SCHEDULED task never calls back; a RUNNING task makes no further attempt. Cancelling a CANCELLED task is a no-op; a SUCCEEDED or FAILED task answers 409 FAILED_PRECONDITION.',
        params: TaskParamsSchema,
        querystring: TaskQuerySchema,
        response: { 200: TaskActionAnswerSchema, ...errors },
      },
    },
    async (request) => {
      const task = await tasks.commands.cancel(
        accessFor(request.principal, request.query.owner),
        request.params.taskId,
      );
      auditTask(request, task);
      request.log.info(
        { taskId: task.taskId, taskType: task.taskType, traceId: task.traceId },
        'task cancelled',
      );
      return visibleTo(request.principal, task);
    },
  );

  app.post(
    '/api/v1/tasks/:taskId/reschedule',
    {
      config: { scope: 'tasks:write' },
      schema: {
        operationId: 'rescheduleTask',
        tags: ['tasks'],
        summary: 'Move a SCHEDULED task to another time',
        description:
          'A workflow update with a validator: a rejected request leaves no trace in the task history.',
        params: TaskParamsSchema,
        querystring: TaskQuerySchema,
        body: RescheduleBodySchema,
        response: { 200: TaskActionAnswerSchema, ...errors },
      },
    },
    async (request) => {
      const task = await tasks.commands.reschedule(
        accessFor(request.principal, request.query.owner),
        request.params.taskId,
        request.body,
      );
      auditTask(request, task);
      request.log.info(
        { taskId: task.taskId, taskType: task.taskType, traceId: task.traceId, executeAt: task.executeAt },
        'task rescheduled',
      );
      return visibleTo(request.principal, task);
    },
  );

  app.post(
    '/api/v1/tasks/:taskId/replay',
    {
      config: { scope: 'tasks:write' },
      schema: {
        operationId: 'replayTask',
        tags: ['dead letters'],
        summary: 'Run a FAILED or CANCELLED task again',
        description:
          'A new run of the same workflow id (the earlier run stays in history); the callback keeps its Idempotency-Key.',
        params: TaskParamsSchema,
        querystring: TaskQuerySchema,
        body: Type.Optional(ReplayBodySchema),
        response: { 200: TaskActionAnswerSchema, ...errors },
      },
      preValidation: absentBodyAsEmpty,
    },
    async (request) => {
      const task = await tasks.commands.replay(
        accessFor(request.principal, request.query.owner),
        request.params.taskId,
        request.body ?? {},
      );
      auditTask(request, task);
      request.log.info(
        { taskId: task.taskId, taskType: task.taskType, traceId: task.traceId },
        'task replayed',
      );
      return visibleTo(request.principal, task);
    },
  );

  app.post(
    '/api/v1/tasks/replay',
    {
      config: { scope: 'admin' },
      schema: {
        operationId: 'replayTasks',
        tags: ['dead letters'],
        summary: 'Replay every matching FAILED (or CANCELLED) task as one server-side batch',
        description: "Acts on every owner's tasks unless `owner` is given.",
        body: BulkReplayBodySchema,
        response: { 202: BatchJobSchema, ...errors },
      },
    },
    async (request, reply) => {
      checkBulkAccess(request.principal, request.body.taskType);
      return reply.code(202).send(await tasks.bulk.replay(request.body));
    },
  );

  app.post(
    '/api/v1/tasks/cancel',
    {
      config: { scope: 'admin' },
      schema: {
        operationId: 'cancelTasks',
        tags: ['tasks'],
        summary: 'Cancel every matching open task as one server-side batch',
        description: "Acts on every owner's tasks unless `owner` is given.",
        body: BulkCancelBodySchema,
        response: { 202: BatchJobSchema, ...errors },
      },
    },
    async (request, reply) => {
      checkBulkAccess(request.principal, request.body.taskType);
      return reply.code(202).send(await tasks.bulk.cancel(request.body));
    },
  );

  app.get(
    '/api/v1/batches/:jobId',
    {
      config: { scope: 'admin' },
      schema: {
        operationId: 'getBatch',
        tags: ['dead letters'],
        summary: 'Progress of a bulk replay or cancel',
        params: BatchParamsSchema,
        response: { 200: BatchJobSchema, ...errors },
      },
    },
    async (request) => tasks.bulk.describe(request.params.jobId),
  );
};
