/**
 * OpenTelemetry traces, off by default and free when off: this module imports nothing of
 * OpenTelemetry; only when `config.tracing.enabled` does `startTracing` load the SDK (./otel.ts),
 * register its tracer provider and hand out the interceptors, hooks and sinks each process installs.
 *
 * One trace per task: the API's request span (continuing the caller's `traceparent`) → the Temporal
 * client's StartWorkflow span → the workflow's RunWorkflow span → StartActivity / RunActivity of each
 * callback attempt → the callback's HTTP client span, whose context goes out as `traceparent`.
 */
import type { WorkflowClientInterceptor } from '@temporalio/client';
import type { OpenTelemetrySinks } from '@temporalio/interceptors-opentelemetry';
import type {
  ActivityInterceptorsFactory,
  InjectedSinks,
  ReplayWorkerOptions,
  WorkerOptions,
} from '@temporalio/worker';
import type { FastifyInstance } from 'fastify';
import type { TracingConfig } from '../config/environment.js';

/** Which process the spans come from: names its default `service.name`. */
export type TracedProcess = 'api' | 'worker';

/** Runs one outgoing callback in a client span; the span's context is added to `headers`. */
export type TraceSend = <T extends { statusCode?: number; message?: string }>(
  url: string,
  headers: Record<string, string>,
  send: () => Promise<T>,
) => Promise<T>;

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

/** Starts tracing when the configuration asks for it; undefined (nothing loaded) when it does not. */
export async function startTracing(
  config: Readonly<TracingConfig>,
  process: TracedProcess,
): Promise<Tracing | undefined> {
  if (!config.enabled) return undefined;
  const { startOpenTelemetry } = await import('./otel.js');
  return startOpenTelemetry(config, process);
}

/** A worker's options with the tracing interceptors and the workflow span sink added (as is when off). */
export function withWorkerTracing<T extends WorkerOptions | ReplayWorkerOptions>(
  options: T,
  tracing: Tracing | undefined,
): T {
  if (!tracing) return options;
  return {
    ...options,
    sinks: { ...options.sinks, ...tracing.workflowSinks },
    interceptors: {
      ...options.interceptors,
      activity: [...(options.interceptors?.activity ?? []), ...tracing.activityInterceptors],
    },
  };
}
