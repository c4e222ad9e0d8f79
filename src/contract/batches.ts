/**
 * Schemas of the routes that act on many tasks at once: the batch create, bulk replay and bulk
 * cancel, and the batch job they start.
 */
import Type, { type Static } from 'typebox';
import { BATCH_TASKS } from '../shared/limits.js';
import { OWNER_PATTERN } from '../shared/owner.js';
import { ErrorBodySchema, NullableTimestampSchema } from './common.js';
import { CreateTaskBodySchema, TASK_EXAMPLE, TaskSchema, TaskTypeSchema } from './tasks.js';

const batchSize = {
  minItems: BATCH_TASKS.min,
  maxItems: BATCH_TASKS.max,
  description: `${BATCH_TASKS.min} to ${BATCH_TASKS.max} single-create bodies, each answered on its own`,
};

/** The batch create body as documented and typed: each item is a single-create body. */
export const CreateTasksBodySchema = Type.Object(
  { tasks: Type.Array(CreateTaskBodySchema, batchSize) },
  {
    additionalProperties: false,
    examples: [
      {
        tasks: [
          {
            taskType: 'order.close_timeout',
            taskId: 'order-10023-close',
            payload: { orderId: '10023' },
            delaySeconds: 1800,
            callbackUrl: 'https://orders.internal/callbacks/close',
          },
          {
            taskType: 'order.close_timeout',
            taskId: 'order-10024-close',
            payload: { orderId: '10024' },
            delaySeconds: 1800,
            callbackUrl: 'https://orders.internal/callbacks/close',
          },
        ],
      },
    ],
  },
);

/**
 * What the batch route validates of the whole body: its shape and size. Each item is validated
 * against CreateTaskBodySchema on its own (src/api/batch-create.ts), so that a bad item gets its own
 * answer instead of failing the others.
 */
export const CreateTasksEnvelopeSchema = Type.Object(
  { tasks: Type.Array(Type.Unknown(), batchSize) },
  { additionalProperties: false },
);

export const CreateTasksResultSchema = Type.Object(
  {
    results: Type.Array(
      Type.Object({
        index: Type.Integer({ minimum: 0, description: "The item's position in the request" }),
        status: Type.Integer({
          description:
            '201 created, 200 an identical task existed (idempotent repeat), else the 4xx or 5xx status a single create of this item answers',
        }),
        // The Task shape without its $id, so that the document inlines it rather than naming a def.
        task: Type.Optional(Type.Object(TaskSchema.properties)),
        error: Type.Optional(ErrorBodySchema.properties.error),
      }),
      { description: 'One entry per item, in request order' },
    ),
  },
  {
    examples: [
      {
        results: [
          { index: 0, status: 201, task: TASK_EXAMPLE },
          {
            index: 1,
            status: 409,
            error: {
              code: 'TASK_CONFLICT',
              message: 'task order-10024-close exists with a different specification',
            },
          },
        ],
      },
    ],
  },
);
export type CreateTasksResult = Static<typeof CreateTasksResultSchema>;

const BulkOwnerSchema = Type.Optional(
  Type.String({ pattern: OWNER_PATTERN, description: "Only this owner's tasks (default: every owner's)" }),
);

export const BulkReplayBodySchema = Type.Object(
  {
    taskType: Type.Optional(TaskTypeSchema),
    owner: BulkOwnerSchema,
    status: Type.Optional(
      Type.Union([Type.Literal('FAILED'), Type.Literal('CANCELLED')], { default: 'FAILED' }),
    ),
  },
  { additionalProperties: false, examples: [{ taskType: 'order.close_timeout', status: 'FAILED' }] },
);
export type BulkReplayBody = Static<typeof BulkReplayBodySchema>;

export const BulkCancelBodySchema = Type.Object(
  {
    taskType: Type.Optional(TaskTypeSchema),
    owner: BulkOwnerSchema,
    status: Type.Optional(
      Type.Union([Type.Literal('SCHEDULED'), Type.Literal('RUNNING')], { description: 'Default: both' }),
    ),
  },
  { additionalProperties: false, examples: [{ taskType: 'coupon.expire' }] },
);
export type BulkCancelBody = Static<typeof BulkCancelBodySchema>;

export const BatchJobSchema = Type.Object({
  jobId: Type.String(),
  operation: Type.Union([Type.Literal('replay'), Type.Literal('cancel')]),
  state: Type.String({ description: 'RUNNING, COMPLETED or FAILED' }),
  matched: Type.Union([Type.Integer(), Type.Null()], {
    description:
      'Tasks matching the filter when the job started; null while a running job has not counted them yet',
  }),
  completed: Type.Union([Type.Integer(), Type.Null()], {
    description:
      'Tasks done so far; Temporal counts them in pages of up to 1000, so a smaller job goes from 0 to all',
  }),
  failed: Type.Union([Type.Integer(), Type.Null()]),
  startedAt: NullableTimestampSchema,
  closedAt: NullableTimestampSchema,
});
export type BatchJob = Static<typeof BatchJobSchema>;

export const BatchParamsSchema = Type.Object({ jobId: Type.String({ pattern: '^[A-Za-z0-9._:-]{1,128}$' }) });
