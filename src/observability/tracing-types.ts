/**
 * What tracing hands each process (src/observability/tracing.ts starts it, ./otel.ts makes it): types
 * only, so that the modules that carry it load nothing of OpenTelemetry.
 */
import type { WorkflowClientInterceptor } from '@temporalio/client';
import type { OpenTelemetrySinks } from '@temporalio/interceptors-opentelemetry';
import type { ActivityInterceptorsFactory, InjectedSinks } from '@temporalio/worker';
import type { FastifyInstance } from 'fastify';
import type { TraceSend } from '../shared/trace-send.js';

export type { TraceSend } from '../shared/trace-send.js';

/** Which process the spans come from: names its default `service.name`. */
export type TracedProcess = 'api' | 'worker';

export interface Tracing {
  readonly serviceName: string;
  /** For the Temporal client that starts tasks: a StartWorkflow span, its context in the workflow's headers. */
  readonly clientInterceptors: WorkflowClientInterceptor[];
  /** Fastify hooks: a server span per request, child of the caller's `traceparent` when it sends one. */
  traceRequests(app: FastifyInstance): void;
  /** Modules bundled with the workflow code: RunWorkflow and StartActivity spans (headers only, no commands). */
  readonly workflowInterceptorModules: string[];
  /** RunActivity spans around each callback attempt, children of the workflow's. */
  readonly activityInterceptors: ActivityInterceptorsFactory[];
  /** The sink the workflow's spans leave the sandbox through (never called during replay). */
  readonly workflowSinks: InjectedSinks<OpenTelemetrySinks>;
  /** The callback's HTTP client span and its outgoing `traceparent`. */
  readonly traceSend: TraceSend;
  /** Exports the spans still buffered and stops the exporter; call it last, after the server or workers stop. */
  shutdown(): Promise<void>;
}
