/**
 * The published task-type catalog: public policies and payload schemas, never secrets. Both routes
 * need scope `tasks:read` (src/api/auth.ts) when authentication is on.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Policies, TaskTypePolicy } from '../../task-types/policies.js';
import { ApiError, ErrorCode } from '../../errors/catalog.js';
import { errorResponses } from '../../contract/common.js';
import {
  PayloadJsonSchemaSchema,
  PayloadSchemaParamsSchema,
  TaskTypeCatalogSchema,
  type TaskTypeInfo,
} from '../../contract/task-types.js';

export interface TaskTypeRoutesOptions {
  policies: Policies;
}

const errors = errorResponses([400, 401, 403, 404, 429, 500]);

export const taskTypeRoutes: FastifyPluginAsyncTypebox<TaskTypeRoutesOptions> = async (app, { policies }) => {
  app.get(
    '/api/v1/task-types',
    {
      config: { scope: 'tasks:read' },
      schema: {
        operationId: 'listTaskTypes',
        tags: ['task types'],
        summary: 'Every declared task type with its public policy and payload schema versions',
        response: { 200: TaskTypeCatalogSchema, ...errors },
      },
    },
    async () => {
      const fallback = policies.defaultPolicy();
      return {
        strict: policies.strict,
        taskTypes: [...policies.declaredTypes().values()].map(toInfo),
        default: fallback ? toInfo(fallback) : null,
      };
    },
  );

  app.get(
    '/api/v1/task-types/:type/schemas/:version',
    {
      config: { scope: 'tasks:read' },
      schema: {
        operationId: 'getPayloadSchema',
        tags: ['task types'],
        summary: 'The JSON Schema of one payloadVersion of a task type',
        params: PayloadSchemaParamsSchema,
        response: { 200: PayloadJsonSchemaSchema, ...errors },
      },
    },
    async (request, reply) => {
      const { type, version } = request.params;
      const policy = policies.declaredTypes().get(type);
      if (!policy) throw new ApiError(ErrorCode.NotFound, `no task type ${type} in the catalog`);
      const schema = policy.payloadSchemas?.schema(Number(version));
      if (!schema) {
        throw new ApiError(
          ErrorCode.NotFound,
          `task type ${type} publishes no schema for payloadVersion ${version}`,
        );
      }
      return reply.type('application/schema+json').send(schema);
    },
  );
};

/** The public part of a policy, field by field: anything added to policies later stays private. */
function toInfo(policy: TaskTypePolicy): TaskTypeInfo {
  return {
    taskType: policy.name,
    allowedCallbackHosts: policy.allowedCallbackHosts ? [...policy.allowedCallbackHosts] : null,
    hasDefaultCallbackUrl: policy.callbackUrl !== undefined,
    maxRetries: { ...policy.maxRetries },
    timeoutMs: { ...policy.timeoutMs },
    concurrency: policy.concurrency,
    ratePerSecond: policy.ratePerSecond ?? null,
    retry: {
      immediateRetries: policy.retry.immediateRetries,
      initialIntervalMs: policy.retry.initialIntervalMs,
      multiplier: policy.retry.multiplier,
      maxIntervalMs: policy.retry.maxIntervalMs,
      maxTotalSeconds: policy.retry.maxTotalSeconds ?? null,
    },
    schemaVersions: policy.payloadSchemas?.versions() ?? [],
  };
}
