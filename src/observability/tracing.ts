/**
 * OpenTelemetry traces, off by default and free when off: this module imports nothing of
 * OpenTelemetry; only when `config.tracing.enabled` does `startTracing` load the SDK (./otel.ts),
 * register its tracer provider and hand out the interceptors, hooks and sinks each process installs.
 *
 * One trace per task: the API's request span (continuing the caller's `traceparent`) → the Temporal
 * client's StartWorkflow span → the workflow's RunWorkflow span → StartActivity / RunActivity of each
 * callback attempt → the callback's HTTP client span, whose context goes out as `traceparent`.
 */
import type { ReplayWorkerOptions, WorkerOptions } from '@temporalio/worker';
import type { TracingConfig } from '../config/tracing.js';
import type { TracedProcess, Tracing } from './tracing-types.js';

export type { TracedProcess, TraceSend, Tracing } from './tracing-types.js';

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
