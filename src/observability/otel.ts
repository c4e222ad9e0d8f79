/**
 * The OpenTelemetry SDK and Temporal's OpenTelemetry interceptors, loaded by ./tracing.ts only when
 * tracing is on. Everything is configured from `config.tracing` (src/config/environment.ts reads the `OTEL_*`
 * variables): a tracer provider registered globally with the W3C trace-context propagator and an
 * async-local context, a batching OTLP exporter (HTTP/protobuf or gRPC) or the console.
 */
import { createRequire } from 'node:module';
import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Span,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { Resource } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ConsoleSpanExporter,
  ParentBasedSampler,
  SimpleSpanProcessor,
  TraceIdRatioBasedSampler,
  type Sampler,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  OpenTelemetryWorkflowClientInterceptor,
} from '@temporalio/interceptors-opentelemetry';
import type { OpenTelemetrySinks } from '@temporalio/interceptors-opentelemetry';
import type { InjectedSinks } from '@temporalio/worker';
import type { WorkflowInfo } from '@temporalio/workflow';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TracingConfig } from '../config/tracing.js';
import { redactUrl } from './logger.js';
import type { TracedProcess, TraceSend, Tracing } from './tracing-types.js';

const TRACER_NAME = 'delayed-task-service';
/** Requests that are probes and scrapes, not work: no span, so they do not drown the tasks' traces. */
const UNTRACED_ROUTES = new Set(['/healthz', '/readyz', '/metrics']);

export async function startOpenTelemetry(
  config: Readonly<TracingConfig>,
  process: TracedProcess,
): Promise<Tracing> {
  const serviceName = config.serviceName ?? `delayed-task-${process}`;
  const resource = Resource.default().merge(
    new Resource({ ...config.resourceAttributes, 'service.name': serviceName }),
  );
  const exporter = await createExporter(config);
  const processor: SpanProcessor =
    config.exporter === 'console' ? new SimpleSpanProcessor(exporter) : new BatchSpanProcessor(exporter);
  const provider = new NodeTracerProvider({
    resource,
    sampler: samplerOf(config),
    spanProcessors: [processor],
  });
  // Global: Temporal's interceptors and the hooks below take their tracer and propagator from it.
  // W3C trace context, named here so that no OTEL_PROPAGATORS read by the SDK decides it.
  provider.register({ propagator: new W3CTraceContextPropagator() });
  const tracer = provider.getTracer(TRACER_NAME);
  const require = createRequire(import.meta.url);

  const traceSend: TraceSend = (url, headers, send) =>
    tracer.startActiveSpan(
      'POST',
      {
        kind: SpanKind.CLIENT,
        attributes: { 'http.request.method': 'POST', 'url.full': String(redactUrl(url)) },
      },
      async (span) => {
        propagation.inject(context.active(), headers);
        try {
          const outcome = await send();
          if (outcome.statusCode !== undefined) {
            span.setAttribute('http.response.status_code', outcome.statusCode);
          }
          if (outcome.message !== undefined) {
            span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.message });
          }
          return outcome;
        } catch (err) {
          span.recordException(err as Error);
          span.setStatus({ code: SpanStatusCode.ERROR });
          throw err;
        } finally {
          span.end();
        }
      },
    );

  return {
    serviceName,
    clientInterceptors: [new OpenTelemetryWorkflowClientInterceptor({ tracer })],
    traceRequests: (app) => traceRequests(app, tracer),
    workflowInterceptorModules: [
      require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors'),
    ],
    activityInterceptors: [
      (ctx) => ({
        inbound: new OpenTelemetryActivityInboundInterceptor(ctx, { tracer }),
        outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
      }),
    ],
    workflowSinks: { exporter: workflowExporter(processor, resource) },
    traceSend,
    async shutdown() {
      await provider.shutdown();
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
}

/** Workflow info fields the workflow's spans carry: which task, which run. */
const WORKFLOW_SPAN_FIELDS = [
  'workflowId',
  'runId',
  'workflowType',
  'taskQueue',
  'namespace',
  'attempt',
] as const;

/**
 * Temporal's sink for the spans made in the workflow sandbox, given only the identifying fields of the
 * workflow info: the SDK's sink copies every field onto every span, the memo and search attributes
 * too, and the memo holds the callback URL whose query string may be a partner's token.
 */
function workflowExporter(
  processor: SpanProcessor,
  resource: Resource,
): InjectedSinks<OpenTelemetrySinks>['exporter'] {
  const sink = makeWorkflowExporter(processor, resource);
  return {
    export: {
      ...sink.export,
      fn: (info, spans) => {
        const fields = Object.fromEntries(WORKFLOW_SPAN_FIELDS.map((key) => [key, info[key]]));
        // The SDK's sink only copies the fields it is given onto the spans' attributes.
        return sink.export.fn(fields as unknown as WorkflowInfo, spans);
      },
    },
  };
}

async function createExporter(config: Readonly<TracingConfig>): Promise<SpanExporter> {
  if (config.exporter === 'console') return new ConsoleSpanExporter();
  if (config.protocol === 'grpc') {
    const [{ OTLPTraceExporter }, { Metadata }] = await Promise.all([
      import('@opentelemetry/exporter-trace-otlp-grpc'),
      import('@grpc/grpc-js'),
    ]);
    const metadata = new Metadata();
    for (const [key, value] of Object.entries(config.headers)) metadata.set(key, value);
    return new OTLPTraceExporter({ url: config.endpoint, metadata });
  }
  const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-proto');
  return new OTLPTraceExporter({ url: config.endpoint, headers: { ...config.headers } });
}

function samplerOf(config: Readonly<TracingConfig>): Sampler {
  const ratio = new TraceIdRatioBasedSampler(config.samplerRatio);
  switch (config.sampler) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return ratio;
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: ratio });
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

/**
 * A SERVER span per request, named by its route (`POST /api/v1/tasks`), child of the caller's
 * `traceparent`. It becomes the active context in `preHandler`, which calls the handler
 * synchronously: the request body arrives on the socket's own async context, so a context entered
 * earlier would be lost by then. Only method, route, path (no query string) and status are recorded.
 */
function traceRequests(app: FastifyInstance, tracer: ReturnType<NodeTracerProvider['getTracer']>): void {
  const spans = new WeakMap<FastifyRequest, Span>();
  app.addHook('onRequest', (request, _reply, done) => {
    const route = request.routeOptions.url;
    if (route === undefined || UNTRACED_ROUTES.has(route)) return done();
    const parent = propagation.extract(ROOT_CONTEXT, request.headers);
    const span = tracer.startSpan(
      `${request.method} ${route}`,
      {
        kind: SpanKind.SERVER,
        attributes: {
          'http.request.method': request.method,
          'http.route': route,
          'url.path': request.url.split('?')[0] ?? '',
        },
      },
      parent,
    );
    spans.set(request, span);
    done();
  });
  app.addHook('preHandler', (request, _reply, done) => {
    const span = spans.get(request);
    if (!span) return done();
    context.with(trace.setSpan(context.active(), span), done);
  });
  app.addHook('onResponse', (request, reply, done) => {
    const span = spans.get(request);
    if (span) {
      span.setAttribute('http.response.status_code', reply.statusCode);
      if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
      spans.delete(request);
    }
    done();
  });
}
