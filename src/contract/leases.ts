/** Schemas of pull delivery's lease routes (docs/workers.md, conformance/pull/README.md). */
import Type, { type Static } from 'typebox';
import { TASK_ID_PATTERN, TASK_TYPE_PATTERN } from '../shared/limits.js';
import { TimestampSchema } from './common.js';
import { TaskStatusSchema } from './tasks.js';

/** Bounds of a lease call. */
export const LEASE_LIMITS = {
  queues: { min: 1, max: 10 },
  max: { min: 1, max: 10, default: 1 },
  waitSeconds: { min: 0, max: 20, default: 20 },
  workerIdentityMaxLength: 200,
  reasonMaxLength: 2000,
} as const;

export const LeaseRequestSchema = Type.Object(
  {
    queues: Type.Array(Type.String({ pattern: TASK_TYPE_PATTERN }), {
      minItems: LEASE_LIMITS.queues.min,
      maxItems: LEASE_LIMITS.queues.max,
      description:
        "Pull queues of the key's owner to lease from (a task's queue is its type unless it named one)",
      examples: [['orders']],
    }),
    max: Type.Optional(
      Type.Integer({
        minimum: LEASE_LIMITS.max.min,
        maximum: LEASE_LIMITS.max.max,
        description: `Most tasks in one answer (default ${LEASE_LIMITS.max.default})`,
      }),
    ),
    waitSeconds: Type.Optional(
      Type.Integer({
        minimum: LEASE_LIMITS.waitSeconds.min,
        maximum: LEASE_LIMITS.waitSeconds.max,
        description: `Longest wait for a first task (default ${LEASE_LIMITS.waitSeconds.default})`,
      }),
    ),
    workerIdentity: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: LEASE_LIMITS.workerIdentityMaxLength,
        description: "Who leases: shown in the task's status while it holds the lease",
        examples: ['host-1/4242'],
      }),
    ),
  },
  { additionalProperties: false, examples: [{ queues: ['orders'], max: 1, waitSeconds: 20 }] },
);
export type LeaseRequest = Static<typeof LeaseRequestSchema>;

export const LeasedTaskSchema = Type.Object({
  taskId: Type.String({ pattern: TASK_ID_PATTERN }),
  taskType: Type.String(),
  queue: Type.String(),
  payload: Type.Object({}, { additionalProperties: true }),
  payloadVersion: Type.Integer(),
  executeAt: TimestampSchema,
  attempt: Type.Integer({ minimum: 1 }),
  idempotencyKey: Type.String({
    description: 'The same on every attempt and after a replay: deduplicate on it',
  }),
  traceId: Type.Union([Type.String(), Type.Null()]),
  schedule: Type.Optional(Type.Object({ scheduleId: Type.String(), scheduledAt: TimestampSchema })),
});

export const LeaseSchema = Type.Object({
  leaseToken: Type.String({ description: 'Opaque; ack, nack, extend or release the lease with it' }),
  leaseExpiresAt: TimestampSchema,
  leaseSeconds: Type.Integer({
    minimum: 1,
    description:
      "The lease's length (the task's delivery.leaseSeconds): it ends leaseSeconds after the answer unless extended, and each extend renews it by as much",
    examples: [60],
  }),
  task: LeasedTaskSchema,
});
export type Lease = Static<typeof LeaseSchema>;

export const LeasesSchema = Type.Object({ leases: Type.Array(LeaseSchema) });
export type Leases = Static<typeof LeasesSchema>;

const LeaseTokenSchema = Type.String({ minLength: 1, maxLength: 4096 });

export const LeaseTokenBodySchema = Type.Object(
  { leaseToken: LeaseTokenSchema },
  { additionalProperties: false },
);
export type LeaseTokenBody = Static<typeof LeaseTokenBodySchema>;

export const NackBodySchema = Type.Object(
  {
    leaseToken: LeaseTokenSchema,
    retryable: Type.Optional(
      Type.Boolean({
        description: "True (default): the task's retry policy applies; false: dead letter now",
      }),
    ),
    reason: Type.Optional(
      Type.String({
        maxLength: LEASE_LIMITS.reasonMaxLength,
        description: "Becomes the task's lastError.message",
      }),
    ),
  },
  { additionalProperties: false },
);
export type NackBody = Static<typeof NackBodySchema>;

export const LeaseOutcomeSchema = Type.Object({
  taskId: Type.String(),
  status: TaskStatusSchema,
});
export type LeaseOutcome = Static<typeof LeaseOutcomeSchema>;

export const ExtendAnswerSchema = Type.Object({ leaseExpiresAt: TimestampSchema });
