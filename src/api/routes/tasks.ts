/**
 * The task routes. Every route declares its scope (`config.scope`, checked by src/api/auth.ts), its
 * params, query, body and responses. A call acts on the key's owner's tasks; an admin key may name
 * another owner with `?owner=`.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { accessFor, auditTask, listOwner } from '../auth.js';
import { ErrorBodySchema } from '../schemas/common.js';
import {
  BatchJobSchema,
  BatchParamsSchema,
  BulkCancelBodySchema,
  BulkReplayBodySchema,
  CreateTaskBodySchema,
  ListTasksQuerySchema,
  ReplayBodySchema,
  RescheduleBodySchema,
  TaskListSchema,
  TaskParamsSchema,
  TaskQuerySchema,
  TaskSchema,
} from '../schemas/tasks.js';
import type { TaskService } from '../task-service.js';

export interface TaskRoutesOptions {
  tasks: TaskService;
  onCreated?: (taskType: string) => void;
}

const errors = {
  400: ErrorBodySchema,
  401: ErrorBodySchema,
  403: ErrorBodySchema,
  404: ErrorBodySchema,
  409: ErrorBodySchema,
  413: ErrorBodySchema,
  429: ErrorBodySchema,
  500: ErrorBodySchema,
  503: ErrorBodySchema,
};

export const taskRoutes: FastifyPluginAsyncTypebox<TaskRoutesOptions> = async (app, { tasks, onCreated }) => {
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
      const { task, created } = await tasks.create(request.principal, request.body);
      auditTask(request, task);
      request.log.info(
        {
          taskId: task.taskId,
          taskType: task.taskType,
          traceId: task.traceId,
          callbackUrl: task.callbackUrl,
          created,
        },
        created ? 'task created' : 'task exists',
      );
      if (!created) return reply.code(200).send(task);
      onCreated?.(task.taskType);
      return reply
        .code(201)
        .header('location', `/api/v1/tasks/${encodeURIComponent(task.taskId)}`)
        .send(task);
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
      return tasks.list(listOwner(request.principal, owner), query);
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
    async (request) =>
      tasks.get(accessFor(request.principal, request.query.owner).owner, request.params.taskId),
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
        response: { 200: TaskSchema, ...errors },
      },
    },
    async (request) => {
      const task = await tasks.cancel(
        accessFor(request.principal, request.query.owner),
        request.params.taskId,
      );
      auditTask(request, task);
      request.log.info(
        { taskId: task.taskId, taskType: task.taskType, traceId: task.traceId },
        'task cancelled',
      );
      return task;
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
        response: { 200: TaskSchema, ...errors },
      },
    },
    async (request) => {
      const task = await tasks.reschedule(
        accessFor(request.principal, request.query.owner),
        request.params.taskId,
        request.body,
      );
      auditTask(request, task);
      request.log.info(
        { taskId: task.taskId, taskType: task.taskType, traceId: task.traceId, executeAt: task.executeAt },
        'task rescheduled',
      );
      return task;
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
        response: { 200: TaskSchema, ...errors },
      },
      // Every override is optional, so the body may be left out: validate its absence as `{}`.
      preValidation: async (request) => {
        if (request.body === undefined) request.body = {};
      },
    },
    async (request) => {
      const task = await tasks.replay(
        accessFor(request.principal, request.query.owner),
        request.params.taskId,
        request.body ?? {},
      );
      auditTask(request, task);
      request.log.info(
        { taskId: task.taskId, taskType: task.taskType, traceId: task.traceId },
        'task replayed',
      );
      return task;
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
    async (request, reply) => reply.code(202).send(await tasks.bulkReplay(request.body)),
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
    async (request, reply) => reply.code(202).send(await tasks.bulkCancel(request.body)),
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
    async (request) => tasks.batch(request.params.jobId),
  );
};
