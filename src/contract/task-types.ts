/** Schemas of the task-type catalog: what each declared type promises producers and consumers. */
import Type, { type Static } from 'typebox';
import { TASK_TYPE_PATTERN } from '../shared/limits.js';
import { PAYLOAD_VERSION_KEY_PATTERN } from '../task-types/catalog.js';

const BoundsSchema = Type.Object({ default: Type.Integer(), max: Type.Integer() });

export const RetryPolicySchema = Type.Object(
  {
    immediateRetries: Type.Integer({ description: 'Retries made at once before the backoff starts' }),
    initialIntervalMs: Type.Integer({ description: 'Wait before the first backoff retry, ms' }),
    multiplier: Type.Number({ description: 'Growth of the wait per retry (1: fixed interval)' }),
    maxIntervalMs: Type.Integer({
      description:
        'Longest wait between attempts, ms; a longer Retry-After still wins (up to 10 minutes or this)',
    }),
    maxTotalSeconds: Type.Union([Type.Integer(), Type.Null()], {
      description: 'No attempt starts later than this after the first: the task is FAILED (null: no limit)',
    }),
  },
  { description: 'Retry schedule of the callbacks' },
);

export const TaskTypeInfoSchema = Type.Object(
  {
    taskType: Type.String({ description: 'The task type; `_default` for the policy of undeclared types' }),
    allowedCallbackHosts: Type.Union([Type.Array(Type.String()), Type.Null()], {
      description: 'Host names (or `*.domain`) a callbackUrl may point at; null: any',
    }),
    hasDefaultCallbackUrl: Type.Boolean({ description: 'A task of this type may omit callbackUrl' }),
    maxRetries: BoundsSchema,
    timeoutMs: BoundsSchema,
    concurrency: Type.Integer({ description: 'Callbacks in flight at once, per worker process' }),
    ratePerSecond: Type.Union([Type.Number(), Type.Null()], {
      description: 'Callback attempts per second across all workers; null: no limit',
    }),
    retry: RetryPolicySchema,
    schemaVersions: Type.Array(Type.Integer(), {
      description: 'payloadVersion values with a published JSON Schema; empty: payloads are not checked',
    }),
  },
  {
    examples: [
      {
        taskType: 'order.close_timeout',
        allowedCallbackHosts: ['orders.internal'],
        hasDefaultCallbackUrl: true,
        maxRetries: { default: 5, max: 10 },
        timeoutMs: { default: 5000, max: 10000 },
        concurrency: 50,
        ratePerSecond: 200,
        retry: {
          immediateRetries: 2,
          initialIntervalMs: 30000,
          multiplier: 2,
          maxIntervalMs: 120000,
          maxTotalSeconds: 86400,
        },
        schemaVersions: [1, 2],
      },
    ],
  },
);
export type TaskTypeInfo = Static<typeof TaskTypeInfoSchema>;

export const TaskTypeCatalogSchema = Type.Object({
  strict: Type.Boolean({ description: 'Undeclared task types are refused' }),
  taskTypes: Type.Array(TaskTypeInfoSchema),
  default: Type.Union([TaskTypeInfoSchema, Type.Null()], {
    description: 'Policy of undeclared task types; null when strict',
  }),
});
export type TaskTypeCatalog = Static<typeof TaskTypeCatalogSchema>;

export const PayloadSchemaParamsSchema = Type.Object({
  type: Type.String({ pattern: TASK_TYPE_PATTERN, description: 'A declared task type' }),
  version: Type.String({ pattern: PAYLOAD_VERSION_KEY_PATTERN, description: 'A payloadVersion' }),
});

export const PayloadJsonSchemaSchema = Type.Object(
  {},
  {
    additionalProperties: true,
    description: 'The JSON Schema (draft-07) that payloads of this type and version must match',
    examples: [{ type: 'object', required: ['orderId'], properties: { orderId: { type: 'string' } } }],
  },
);
