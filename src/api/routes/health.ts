/** Liveness, readiness and metrics of the API process. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { bearerMatches } from '../../security/bearer-token.js';
import { unauthenticated } from '../auth.js';
import { errorResponses } from '../../contract/common.js';
import type { ApiMetrics } from '../metrics.js';

export interface HealthRoutesOptions {
  /** Resolves when Temporal answers and the namespace exists. */
  ready: () => Promise<void>;
  /** True once the process is shutting down: not ready, whatever Temporal says. */
  draining?: () => boolean;
  metrics: ApiMetrics;
  /** When set, /metrics requires `Authorization: Bearer <token>`. */
  metricsToken?: string | undefined;
  /** False when /metrics is served elsewhere (METRICS_PORT). */
  serveMetrics?: boolean;
}

const StatusSchema = Type.Object({ status: Type.String(), reason: Type.Optional(Type.String()) });

export const healthRoutes: FastifyPluginAsyncTypebox<HealthRoutesOptions> = async (
  app,
  { ready, draining = () => false, metrics, metricsToken, serveMetrics = true },
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
      if (draining()) return reply.code(503).send({ status: 'unavailable', reason: 'shutting down' });
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

  if (!serveMetrics) return;
  app.get(
    '/metrics',
    {
      schema: {
        operationId: 'metrics',
        tags: ['operations'],
        summary: 'Prometheus metrics',
        description: 'Open unless METRICS_TOKEN is set; then `Authorization: Bearer <METRICS_TOKEN>`.',
        produces: ['text/plain'],
        response: { 200: Type.String({ description: 'Prometheus text format' }), ...errorResponses([401]) },
      },
    },
    async (request, reply) => {
      if (metricsToken !== undefined && !bearerMatches(request.headers.authorization, metricsToken)) {
        throw unauthenticated();
      }
      return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
    },
  );
};
