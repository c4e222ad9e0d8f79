/**
 * Builds the HTTP API; never listens (src/api/main.ts does). Tests drive it with `app.inject`.
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { PayloadCodec } from '@temporalio/common';
import Fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyServerOptions,
} from 'fastify';
import type { KeyStore } from '../auth/key-store.js';
import type { Config } from '../config/environment.js';
import { BATCH_TASKS } from '../shared/limits.js';
import { createAjv, toFieldProblems } from '../validation/json-schema.js';
import { registerAuth, SECURITY_SCHEME } from './auth.js';
import {
  ApiError,
  ERROR_DESCRIPTIONS,
  ErrorCode,
  invalidArgument,
  PayloadSchemaError,
  schemaViolation,
} from '../errors/catalog.js';
import { BODY_LEVELS_ABOVE_PAYLOAD, parseJsonText } from '../http/json-body.js';
import { answerClientError } from '../http/client-errors.js';
import { serverOptions } from '../http/server-timeouts.js';
import { CallbackRefusedError } from '../security/callback-guard.js';
import type { ApiMetrics } from './metrics.js';
import { codecRoutes } from './routes/codec.js';
import { healthRoutes } from './routes/health.js';
import { leaseRoutes } from './routes/leases.js';
import { taskTypeRoutes } from './routes/task-types.js';
import { scheduleRoutes } from './routes/schedules.js';
import { taskRoutes } from './routes/tasks.js';
import type { ScheduleService } from '../schedules/service.js';
import type { TaskService } from '../tasks/service.js';

export interface AppOptions {
  config: Readonly<Config>;
  tasks: TaskService;
  /** The schedule routes (`/api/v1/schedules`); none when absent. */
  schedules?: ScheduleService;
  metrics: ApiMetrics;
  /** Serves /codec/encode and /codec/decode with it (encryption on); no codec routes when absent. */
  codec?: PayloadCodec;
  /** The API keys; undefined: authentication is off (every request is owner `default`, every scope). */
  keys?: KeyStore | undefined;
  /** False when /metrics is served on a port of its own (METRICS_PORT). @defaultValue true */
  serveMetrics?: boolean;
  /** True once the process is shutting down: `/readyz` then answers 503 (src/api/shutdown.ts). */
  draining?: () => boolean;
  /** Fastify's logger option: a pino instance in production, false in quiet tests. */
  logger?: FastifyServerOptions['loggerInstance'] | false;
  /** Tracing on: installs the request span hooks (`Tracing.traceRequests`, src/observability/tracing.ts). */
  traceRequests?: (app: FastifyInstance) => void;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The body is a list of items each checked on its own (a batch): the parser leaves numbers to them. */
    numbersCheckedPerItem?: boolean;
  }
}

/** Room for the envelope around a payload of the largest allowed size. */
const ENVELOPE_BYTES = 64 * 1024;
/** Room for the fields around each payload of a batch (taskId, callbackUrl up to 2 KB, traceId...). */
const BATCH_ITEM_ENVELOPE_BYTES = 4 * 1024;
/**
 * Longest path parameter the router matches: well past the longest task id (128), so that every id
 * reaches its route's schema (which answers a too-long one 400 naming the field); a longer one is
 * answered 400 in the API's envelope too (`frameworkErrors`), never in Fastify's own 414 body.
 */
const MAX_PARAM_LENGTH = 512;

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { config, tasks, metrics } = options;
  const app = Fastify({
    ...(options.logger ? { loggerInstance: options.logger } : { logger: false }),
    bodyLimit: config.limits.maxPayloadBytes + ENVELOPE_BYTES,
    requestIdHeader: 'x-request-id',
    return503OnClosing: true,
    // Only these proxies' X-Forwarded-* headers are believed (request.ip, request.protocol).
    trustProxy: config.http.trustProxy.length > 0 ? config.http.trustProxy : false,
    // A client dripping its request, or idling on a socket, is cut off (src/http/server-timeouts.ts).
    http: serverOptions(config.http),
    requestTimeout: config.http.requestTimeoutMs,
    keepAliveTimeout: config.http.keepAliveTimeoutMs,
    connectionTimeout: config.http.connectionTimeoutMs,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // What the router refuses before any route runs answers in the API's envelope like the rest.
    frameworkErrors: (error, _request, reply) => void answerRouterError(error, reply),
    // And what Node's parser refuses before the router (431, 408, not HTTP): the same envelope.
    clientErrorHandler: answerClientError,
  }).withTypeProvider<TypeBoxTypeProvider>();
  options.traceRequests?.(app);

  if (config.http.hstsMaxAgeSeconds > 0) {
    // Only on answers that went out over https (directly, or as a trusted proxy says): browsers
    // ignore it over http, and a laptop's first run must not pin anything.
    const hsts = `max-age=${config.http.hstsMaxAgeSeconds}; includeSubDomains`;
    app.addHook('onSend', async (request, reply) => {
      if (request.protocol === 'https') reply.header('strict-transport-security', hsts);
    });
  }

  // Bodies are validated as sent (no coercion, unknown fields rejected); query strings and path
  // parameters are text, so numbers there are coerced.
  const strict = createAjv();
  const coercing = createAjv({ coerceTypes: true, useDefaults: true });
  app.setValidatorCompiler(({ schema, httpPart }) =>
    (httpPart === 'body' ? strict : coercing).compile(schema),
  );

  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    try {
      done(
        null,
        parseJsonText(body as string, {
          field: 'body',
          maxDepth: config.limits.maxPayloadDepth + BODY_LEVELS_ABOVE_PAYLOAD,
          checkNumbers: !request.routeOptions.config.numbersCheckedPerItem,
        }),
      );
    } catch (error) {
      done(error as Error, undefined);
    }
  });

  const countRejection = (apiError: ApiError) => {
    if (apiError instanceof PayloadSchemaError) {
      metrics.payloadSchemaRejected(apiError.taskType, apiError.payloadVersion, apiError.versionDeclared);
    }
  };
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const apiError = toApiError(error);
    countRejection(apiError);
    if (request.audit) request.audit.outcome = apiError.code;
    if (apiError.code === ErrorCode.Unauthenticated) {
      reply.header('www-authenticate', 'Bearer realm="delayed-task-service"');
    }
    if (apiError.status >= 500) request.log.error({ err: error }, 'request failed');
    else
      request.log.info(
        {
          code: apiError.code,
          message: apiError.message,
          // The refusal's detail the caller is not told (e.g. the internal address a name resolved to).
          ...(apiError.cause instanceof Error && { cause: apiError.cause.message }),
          // What a refused callback host resolved to (src/security/callback-guard.ts).
          ...(apiError.cause instanceof CallbackRefusedError &&
            apiError.cause.address !== undefined && { address: apiError.cause.address }),
        },
        'request rejected',
      );
    return reply.code(apiError.status).send(apiError.toBody());
  });
  app.setNotFoundHandler((request, reply) =>
    reply
      .code(404)
      .send(
        new ApiError(ErrorCode.NotFound, `no route ${request.method} ${request.url.split('?')[0]}`).toBody(),
      ),
  );

  // Every log line of a request about one task carries its id.
  app.addHook('preHandler', async (request, reply) => {
    const taskId =
      (request.params as { taskId?: unknown } | undefined)?.taskId ??
      (request.body as { taskId?: unknown } | undefined)?.taskId;
    if (typeof taskId === 'string') {
      request.log = request.log.child({ taskId });
      reply.log = request.log;
    }
  });

  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.httpDuration.observe(
      { method: request.method, route, status_code: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
  });

  // Before the routes and the documentation: it reads each route's scope as it is registered.
  await registerAuth(app, {
    keys: options.keys,
    requestsPerMinute: config.auth.requestsPerMinute,
    failuresPerMinute: config.auth.failuresPerMinute,
    failuresPerMinuteGlobal: config.auth.failuresPerMinuteGlobal,
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Delayed task service',
        version: '1.0.0',
        description: [
          'Durable delayed HTTP callbacks: each task is one Temporal workflow (workflow id = task id for owner `default`, `<owner>/<taskId>` otherwise).',
          '',
          "**Authentication:** `Authorization: Bearer dts_<keyId>_<secret>` on every `/api/v1` route (use **Authorize** above); each route names its scope: `tasks:read`, `tasks:write`, `tasks:lease`, `schedules:read`, `schedules:write` or `admin` (which holds every scope and acts on every owner). A key sees only its owner's tasks and schedules. Without a keys file the API serves on loopback only, with authentication off.",
          '',
          '**Error codes** (body `{"error": {"code", "message", "details"}}`):',
          ...Object.entries(ERROR_DESCRIPTIONS).map(([code, text]) => `- \`${code}\`: ${text}`),
        ].join('\n'),
      },
      tags: [
        { name: 'tasks', description: 'Create, look up, list, cancel and reschedule tasks' },
        { name: 'dead letters', description: 'Inspect and replay FAILED tasks' },
        {
          name: 'leases',
          description:
            'Pull delivery: lease due tasks of pull queues, then ack, nack, extend or release them (docs/workers.md)',
        },
        {
          name: 'schedules',
          description:
            'Recurring tasks on Temporal Schedules (cron or interval, time zone, overlap and catch-up policies); each occurrence is a task',
        },
        {
          name: 'task types',
          description:
            'The catalog: public policy, retry schedule and payload JSON Schemas of each task type',
        },
        { name: 'operations', description: 'Health and metrics' },
      ],
      components: {
        securitySchemes: {
          [SECURITY_SCHEME]: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'dts_<keyId>_<secret>',
            description: 'An API key minted with `npm run keys -- create`',
          },
        },
      },
    },
  });
  // /docs shares its origin with the console: a key pasted under Authorize is not written to
  // localStorage (any script on the origin could read it), the page cannot be framed, and a CSP
  // allows only its own scripts and styles (hashes of swagger-ui's inline ones).
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { persistAuthorization: false, validatorUrl: null },
    staticCSP: true,
    transformStaticCSP: (header) =>
      header
        .replace("frame-ancestors 'self'", "frame-ancestors 'none'")
        .replace(' validator.swagger.io', '')
        .replace("font-src 'self' https: data:", "font-src 'self' data:")
        .replace("style-src 'self' https:", "style-src 'self'"),
    uiHooks: {
      onRequest: (_request, reply, done) => {
        reply.header('x-frame-options', 'DENY');
        reply.header('x-content-type-options', 'nosniff');
        reply.header('referrer-policy', 'no-referrer');
        done();
      },
    },
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  await app.register(healthRoutes, {
    ready: () => tasks.ready(),
    ...(options.draining ? { draining: options.draining } : {}),
    metrics,
    metricsToken: config.metrics.token,
    serveMetrics: options.serveMetrics ?? config.metrics.port === undefined,
  });
  await app.register(taskRoutes, {
    tasks,
    onCreated: (taskType) => metrics.taskCreated(taskType),
    onRejected: countRejection,
    // Room for every item at the payload limit: whatever 100 single creates may carry, one batch may.
    batchBodyLimit:
      BATCH_TASKS.max * (config.limits.maxPayloadBytes + BATCH_ITEM_ENVELOPE_BYTES) + ENVELOPE_BYTES,
  });
  await app.register(leaseRoutes, {
    leases: tasks.leases,
    onLeased: (task) => metrics.taskLeased(task),
    onSettled: (outcome) => metrics.leaseSettled(outcome),
  });
  await app.register(taskTypeRoutes, { policies: tasks.policies });
  if (options.schedules) await app.register(scheduleRoutes, { schedules: options.schedules });
  if (options.codec) {
    await app.register(codecRoutes, {
      codec: options.codec,
      authToken: config.codec.authToken,
      keys: options.keys,
      corsOrigins: config.codec.corsOrigins,
    });
  }
  return app;
}

/** The answer to a request the router refused (a path parameter too long, a bad percent-encoding). */
function answerRouterError(error: FastifyError, reply: FastifyReply): FastifyReply {
  const apiError =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? invalidArgument('path', `has a segment over ${MAX_PARAM_LENGTH} characters`)
      : error.code === 'FST_ERR_BAD_URL'
        ? invalidArgument('path', 'is not a valid URL (a bad percent-encoding)')
        : toApiError(error);
  return reply.code(apiError.status).send(apiError.toBody());
}

function toApiError(error: FastifyError | ApiError): ApiError {
  if (error instanceof ApiError) return error;
  if (error.validation) {
    const root = error.validationContext === 'body' ? '' : (error.validationContext ?? '');
    const details = toFieldProblems(error.validation as never, root === 'querystring' ? '' : root);
    return schemaViolation(details);
  }
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError(ErrorCode.PayloadTooLarge, 'request body is over the size limit');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError(ErrorCode.UnsupportedMediaType, 'send the body as application/json');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError(ErrorCode.InvalidArgument, 'body is empty', [
        { field: 'body', reason: 'is required' },
      ]);
    default:
      if (error.statusCode === 405) return new ApiError(ErrorCode.MethodNotAllowed, error.message);
      if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
        return new ApiError(ErrorCode.InvalidArgument, error.message);
      }
      return new ApiError(ErrorCode.Internal, 'internal error', undefined, { cause: error });
  }
}
