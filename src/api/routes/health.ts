/** Liveness, readiness and metrics of the API process. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import type { ApiMetrics } from '../metrics.js';

export interface HealthRoutesOptions {
  /** Resolves when Temporal answers and the namespace exists. */
  ready: () => Promise<void>;
  metrics: ApiMetrics;
}

const StatusSchema = Type.Object({ status: Type.String(), reason: Type.Optional(Type.String()) });

export const healthRoutes: FastifyPluginAsyncTypebox<HealthRoutesOptions> = async (
  app,
  { ready, metrics },
) => {
  app.get(
    '/healthz',
    {
      schema: {
        operationId: 'healthz',
        tags: ['operations'],
        summary: 'The process is alive',
        response: { 200: StatusSchema },
      },
    },
    async () => ({ status: 'ok' }),
  );

  app.get(
    '/readyz',
    {
      schema: {
        operationId: 'readyz',
        tags: ['operations'],
        summary: 'Temporal is reachable and the namespace exists (503 otherwise)',
        response: { 200: StatusSchema, 503: StatusSchema },
      },
    },
    async (request, reply) => {
      try {
        await ready();
        return { status: 'ready' };
      } catch (err) {
        request.log.warn({ err }, 'not ready');
        return reply
          .code(503)
          .send({ status: 'unavailable', reason: 'Temporal is unreachable or the namespace is missing' });
      }
    },
  );

  app.get(
    '/metrics',
    {
      schema: {
        operationId: 'metrics',
        tags: ['operations'],
        summary: 'Prometheus metrics',
        produces: ['text/plain'],
        response: { 200: Type.String({ description: 'Prometheus text format' }) },
      },
    },
    async (_request, reply) =>
      reply.type(metrics.registry.contentType).send(await metrics.registry.metrics()),
  );
};
