/** Schemas of the task resource and its routes. Types come from `Static<>`, so they cannot drift. */
import Type, { type Static } from 'typebox';
import {
  MAX_RETRIES,
  PRIORITY,
  TASK_ID_PATTERN,
  TASK_TYPE_PATTERN,
  TIMEOUT_MS,
  TRACE_ID_MAX_LENGTH,
} from '../shared/limits.js';
import { ATTEMPT_HISTORY_LIMIT } from '../shared/constants.js';
import { OWNER_PATTERN } from '../shared/owner.js';
import {
  ClientTimeSchema,
  NullableTimestampSchema,
  pageSchema,
  pagingQueryProperties,
  TimestampSchema,
} from './common.js';

export const TaskTypeSchema = Type.String({
  pattern: TASK_TYPE_PATTERN,
  description: 'Lower-case name of the kind of task',
  examples: ['order.close_timeout'],
});
const TaskIdSchema = Type.String({
  pattern: TASK_ID_PATTERN,
  description: 'Client-chosen id, unique per task; generated when absent',
  examples: ['order-10023-close'],
});
const OwnerSchema = Type.String({
  pattern: OWNER_PATTERN,
  description:
    'Team or service the task belongs to: the owner of the API key that created it; `default` when authentication is off',
  examples: ['orders'],
});
const PayloadSchema = Type.Object(
  {},
  {
    additionalProperties: true,
    description: 'JSON object given to the callback unchanged',
    examples: [{ orderId: '10023' }],
  },
);
const DelaySecondsSchema = Type.Number({
  minimum: 0,
  description: 'Run this many seconds from now (fractions allowed)',
  examples: [1800],
});
const MaxRetriesSchema = Type.Integer({
  minimum: MAX_RETRIES.min,
  maximum: MAX_RETRIES.max,
  description: `Retries after the first attempt (default ${MAX_RETRIES.default}, or the task type's)`,
});
const TimeoutMsSchema = Type.Integer({
  minimum: TIMEOUT_MS.min,
  maximum: TIMEOUT_MS.max,
  description: `Limit of one callback attempt in ms (default ${TIMEOUT_MS.default}, or the task type's)`,
});
const PayloadVersionSchema = Type.Integer({
  minimum: 1,
  maximum: 2_147_483_647,
  description: 'Version of the payload schema (default 1)',
});
const PrioritySchema = Type.Integer({
  minimum: PRIORITY.min,
  maximum: PRIORITY.max,
  description: '1 highest to 5 lowest (default 3): order of callbacks due together when a type is saturated',
});
export const TaskStatusSchema = Type.Union(
  [
    Type.Literal('SCHEDULED'),
    Type.Literal('RUNNING'),
    Type.Literal('SUCCEEDED'),
    Type.Literal('FAILED'),
    Type.Literal('CANCELLED'),
  ],
  {
    description:
      'SCHEDULED, RUNNING (callback in progress or waiting to retry), SUCCEEDED, FAILED (dead letter), CANCELLED',
  },
);

const PullQueueSchema = Type.String({
  pattern: TASK_TYPE_PATTERN,
  description: "A pull queue of the owner: a task type's characters",
  examples: ['orders'],
});

/** A create's delivery: pull (docs/workers.md); absent, the task is called back at `callbackUrl`. */
export const DeliveryRequestSchema = Type.Object(
  {
    mode: Type.Literal('pull'),
    queue: Type.Optional(PullQueueSchema),
    leaseSeconds: Type.Optional(
      Type.Integer({
        minimum: 1,
        description:
          'Length of a lease, renewed by extend (default 60; within LEASE_MIN_SECONDS and LEASE_MAX_SECONDS)',
      }),
    ),
  },
  {
    additionalProperties: false,
    description:
      'Pull delivery: when due, the task waits on the pull queue (default: its task type) until a worker leases it (POST /api/v1/leases)',
  },
);
export type DeliveryRequest = Static<typeof DeliveryRequestSchema>;

/** A task's delivery as its view shows it, defaults applied. */
export const DeliverySchema = Type.Object(
  {
    mode: Type.Literal('pull'),
    queue: PullQueueSchema,
    leaseSeconds: Type.Integer({ minimum: 1 }),
  },
  { description: 'Pull delivery; absent for a task called back at its callbackUrl' },
);

/** A pull task's lease while a worker holds it (from Temporal's pending activity). */
export const LeaseViewSchema = Type.Object(
  {
    expiresAt: TimestampSchema,
    workerIdentity: Type.Union([Type.String(), Type.Null()]),
  },
  { description: 'While a worker holds the task: when its lease runs out unless extended, and who holds it' },
);

export const CreateTaskBodySchema = Type.Object(
  {
    taskType: TaskTypeSchema,
    payload: PayloadSchema,
    delaySeconds: Type.Optional(DelaySecondsSchema),
    executeAt: Type.Optional(ClientTimeSchema),
    callbackUrl: Type.Optional(
      Type.String({
        maxLength: 2048,
        description:
          "Absolute http(s) URL; may be omitted when the task type's policy has one. Exactly one of callbackUrl or delivery",
        examples: ['https://orders.internal/callbacks/close'],
      }),
    ),
    delivery: Type.Optional(DeliveryRequestSchema),
    taskId: Type.Optional(TaskIdSchema),
    maxRetries: Type.Optional(MaxRetriesSchema),
    timeoutMs: Type.Optional(TimeoutMsSchema),
    payloadVersion: Type.Optional(PayloadVersionSchema),
    traceId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: TRACE_ID_MAX_LENGTH,
        description: 'Caller trace id; sent on as W3C traceparent',
      }),
    ),
    priority: Type.Optional(PrioritySchema),
  },
  {
    additionalProperties: false,
    description: 'Exactly one of delaySeconds or executeAt',
    examples: [
      {
        taskType: 'order.close_timeout',
        taskId: 'order-10023-close',
        payload: { orderId: '10023' },
        delaySeconds: 1800,
        callbackUrl: 'https://orders.internal/callbacks/close',
      },
    ],
  },
);
export type CreateTaskBody = Static<typeof CreateTaskBodySchema>;

export const TaskErrorSchema = Type.Object({
  message: Type.String(),
  statusCode: Type.Optional(
    Type.Integer({ description: 'HTTP status the callback answered, when it answered' }),
  ),
});

/** A task as the API answers it: the example of TaskSchema and of the batch answer. */
export const TASK_EXAMPLE = {
  taskId: 'order-10023-close',
  owner: 'orders',
  taskType: 'order.close_timeout',
  status: 'SCHEDULED',
  executeAt: '2026-12-02T10:30:00.000Z',
  createdAt: '2026-12-02T10:00:00.000Z',
  payload: { orderId: '10023' },
  payloadVersion: 1,
  callbackUrl: 'https://orders.internal/callbacks/close',
  maxRetries: 3,
  timeoutMs: 30000,
  traceId: null,
  priority: 3,
  attempts: 0,
  lastError: null,
  nextAttemptAt: null,
  firedAt: null,
  completedAt: null,
  attemptHistory: [],
};

export const AttemptSchema = Type.Object({
  attempt: Type.Integer({ minimum: 1, description: '1 for the first attempt' }),
  startedAt: TimestampSchema,
  finishedAt: TimestampSchema,
  outcome: Type.Union(
    [
      Type.Literal('SUCCEEDED'),
      Type.Literal('RETRYABLE_ERROR'),
      Type.Literal('PERMANENT_ERROR'),
      Type.Literal('CANCELLED'),
    ],
    {
      description:
        'SUCCEEDED (2xx), RETRYABLE_ERROR (408, 425, 429, 5xx, timeout, network), PERMANENT_ERROR (other 4xx, 3xx, refused), CANCELLED (cancelled in flight)',
    },
  ),
  statusCode: Type.Optional(
    Type.Integer({ description: 'HTTP status the callback answered, when it answered' }),
  ),
  error: Type.Optional(Type.String({ description: 'Why the attempt failed' })),
});

export const TaskSchema = Type.Object(
  {
    taskId: TaskIdSchema,
    owner: OwnerSchema,
    taskType: TaskTypeSchema,
    status: TaskStatusSchema,
    executeAt: TimestampSchema,
    createdAt: TimestampSchema,
    payload: PayloadSchema,
    payloadVersion: Type.Integer(),
    callbackUrl: Type.Optional(Type.String({ description: 'Absent for a task with a delivery' })),
    delivery: Type.Optional(DeliverySchema),
    lease: Type.Optional(LeaseViewSchema),
    maxRetries: Type.Integer(),
    timeoutMs: Type.Integer(),
    traceId: Type.Union([Type.String(), Type.Null()]),
    priority: Type.Integer(),
    attempts: Type.Integer({ description: 'Attempts made so far (callbacks, or leases not released)' }),
    lastError: Type.Union([TaskErrorSchema, Type.Null()]),
    nextAttemptAt: Type.Union([TimestampSchema, Type.Null()], {
      description: 'When the next retry is due, while retrying',
    }),
    firedAt: NullableTimestampSchema,
    completedAt: NullableTimestampSchema,
    attemptHistory: Type.Optional(
      Type.Array(AttemptSchema, {
        maxItems: ATTEMPT_HISTORY_LIMIT,
        description: `The newest ${ATTEMPT_HISTORY_LIMIT} callback attempts of the current run, oldest first; times as the workflow saw them. The status query rebuilds it by replay, for runs older than it too; absent only when a worker without it answers.`,
      }),
    ),
  },
  {
    $id: 'Task',
    examples: [TASK_EXAMPLE],
  },
);
export type Task = Static<typeof TaskSchema>;

/**
 * The answer of a cancel, reschedule or replay: the task, but without its payload, callback URL and
 * attempt history when the key lacks tasks:read (a write-only key learns nothing it did not send).
 */
export const TaskActionAnswerSchema = Type.Object(
  {
    ...TaskSchema.properties,
    payload: Type.Optional(PayloadSchema),
    callbackUrl: Type.Optional(Type.String()),
  },
  {
    $id: 'TaskActionAnswer',
    description: 'A task; payload, callbackUrl and attemptHistory are absent for a key without tasks:read.',
  },
);

export const TaskParamsSchema = Type.Object({ taskId: TaskIdSchema });

const OwnerParamSchema = Type.Optional(
  Type.String({
    pattern: OWNER_PATTERN,
    description: "Admin keys only: act on this owner's task (default: the key's own owner)",
  }),
);

/** Query of the single-task routes: an admin key may address another owner's task. */
export const TaskQuerySchema = Type.Object({ owner: OwnerParamSchema }, { additionalProperties: false });
export type TaskQuery = Static<typeof TaskQuerySchema>;

/** A list entry: the task without its payload (fetch the task for it), from Temporal visibility. */
export const TaskSummarySchema = Type.Object({
  taskId: Type.String(),
  owner: Type.String(),
  taskType: Type.String(),
  status: TaskStatusSchema,
  executeAt: Type.Union([TimestampSchema, Type.Null()]),
  createdAt: Type.Union([TimestampSchema, Type.Null()]),
  callbackUrl: Type.Union([Type.String(), Type.Null()], { description: 'Null for a pull task' }),
  deliveryMode: Type.Optional(
    Type.Literal('pull', { description: 'A pull task; absent for a task called back at its callbackUrl' }),
  ),
  priority: Type.Union([Type.Integer(), Type.Null()]),
  attempts: Type.Integer(),
  lastError: Type.Union([TaskErrorSchema, Type.Null()]),
  completedAt: NullableTimestampSchema,
});
export type TaskSummary = Static<typeof TaskSummarySchema>;

export const ListTasksQuerySchema = Type.Object(
  {
    status: Type.Optional(TaskStatusSchema),
    taskType: Type.Optional(TaskTypeSchema),
    idPrefix: Type.Optional(
      Type.String({
        pattern: TASK_ID_PATTERN,
        description:
          "Only tasks whose id starts with this (case-sensitive; on a visibility store that compares without case, a page may hold fewer than pageSize tasks). Within one owner: an admin listing every owner's tasks must name `owner` too",
        examples: ['order-10023'],
      }),
    ),
    dueAfter: Type.Optional(
      Type.String({
        maxLength: 64,
        description: 'Only tasks due at or after this time (RFC 3339 with an offset)',
        examples: ['2026-12-02T18:30:00+08:00'],
      }),
    ),
    dueBefore: Type.Optional(
      Type.String({
        maxLength: 64,
        description: 'Only tasks due before this time (RFC 3339 with an offset)',
        examples: ['2026-12-02T18:30:00+08:00'],
      }),
    ),
    ...pagingQueryProperties('tasks'),
  },
  { additionalProperties: false },
);
export type ListTasksQuery = Static<typeof ListTasksQuerySchema>;

export const TaskListSchema = pageSchema('tasks', TaskSummarySchema);
export type TaskList = Static<typeof TaskListSchema>;

const WhenProperties = {
  delaySeconds: Type.Optional(DelaySecondsSchema),
  executeAt: Type.Optional(ClientTimeSchema),
};

export const RescheduleBodySchema = Type.Object(WhenProperties, {
  additionalProperties: false,
  description: 'Exactly one of delaySeconds or executeAt',
  examples: [{ delaySeconds: 600 }],
});
export type RescheduleBody = Static<typeof RescheduleBodySchema>;

export const ReplayBodySchema = Type.Object(
  {
    payload: Type.Optional(PayloadSchema),
    payloadVersion: Type.Optional(PayloadVersionSchema),
    maxRetries: Type.Optional(MaxRetriesSchema),
    ...WhenProperties,
  },
  {
    additionalProperties: false,
    description: 'Overrides for the new run; it runs now unless delaySeconds or executeAt say otherwise',
  },
);
export type ReplayBody = Static<typeof ReplayBodySchema>;
