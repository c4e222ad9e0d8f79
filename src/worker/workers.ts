/**
 * The Temporal workers of one worker process: one per task-type policy, each on its type's own task
 * queue with its own slots and rate limit, so that a slow type cannot hold back another type's
 * tasks; and one on the shared workflow queue for tasks started before workflow shape v2.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { DataConverter, Logger } from '@temporalio/common';
import {
  bundleWorkflowCode,
  Runtime,
  Worker,
  type InjectedSinks,
  type NativeConnection,
  type WorkerOptions,
  type WorkflowBundleOption,
  type WorkflowBundleWithSourceMap,
} from '@temporalio/worker';
import { BrokerPool } from '../activities/brokers/pool.js';
import { createBrokerActivities } from '../activities/brokers/publish.js';
import { createActivities, type CallbackDeps } from '../activities/callback.js';
import { WORKER_DEFAULTS, type Config } from '../config/environment.js';
import { CallbackGuard } from '../security/callback-guard.js';
import { WebhookSecrets } from '../security/webhook-secrets.js';
import type { Policies } from '../task-types/policies.js';
import { typeQueue } from '../shared/task-queues.js';
import { createDataConverter, failureConverterPath } from '../temporal/data-converter.js';
import type { TaskSinks } from '../shared/sinks.js';
import { withWorkerTracing, type Tracing } from '../observability/tracing.js';
import type { WorkerMetrics } from './metrics.js';

export interface TaskWorkersOptions {
  connection: NativeConnection;
  namespace: string;
  /** Task queue of the task workflows. */
  taskQueue: string;
  policies: Policies;
  metrics?: WorkerMetrics;
  /** Prebuilt workflow code (or its path); bundled from source when absent. */
  workflowBundle?: WorkflowBundleOption;
  /** Sticky cache size, about 0.5 MiB per workflow (see `Config.worker.maxCachedWorkflows`). */
  maxCachedWorkflows?: number;
  maxConcurrentWorkflowTasks?: number;
  /**
   * On shutdown, how long in-flight callbacks may run on before they are cancelled; a worker still
   * stopping `SHUTDOWN_FORCE_MARGIN_MS` later gives up (`GracefulShutdownPeriodExpiredError`).
   * @defaultValue 35000
   */
  shutdownGraceMs?: number;
  /** Failure converter and payload codec (encryption); `createDataConverter(undefined)` by default. */
  dataConverter?: DataConverter;
  /** Passed to the callback activities (SSRF guard, DNS, signing secrets, connection pool). */
  callbackDeps?: Omit<CallbackDeps, 'observer'>;
  /** OpenTelemetry (src/observability/tracing.ts): interceptors, the workflow span sink, the callback span. */
  tracing?: Tracing;
  /**
   * The process's broker connections, one per declared broker (src/activities/brokers/pool.ts); the
   * caller closes it after the workers stopped. None: broker tasks are held (no broker declared).
   */
  brokerPool?: BrokerPool;
}

/** The callback activities' SSRF guard, signing secrets and response cap, from configuration. */
export function callbackDepsFromConfig(config: Readonly<Config>): Omit<CallbackDeps, 'observer'> {
  return {
    guard: new CallbackGuard(config.callbacks),
    secrets: new WebhookSecrets({
      defaultSecrets: config.webhooks.defaultSecrets,
      secretsFile: config.webhooks.secretsFile,
    }),
    maxResponseBytes: config.callbacks.maxResponseBytes,
  };
}

/** Path of the workflows module: compiled JavaScript in dist/, TypeScript when run from src/. */
export function workflowsPath(): string {
  const js = fileURLToPath(new URL('../workflows/index.js', import.meta.url));
  return existsSync(js) ? js : fileURLToPath(new URL('../workflows/index.ts', import.meta.url));
}

/** Webpack's build report is noise in service logs: keep the bundler's warnings and errors only. */
const bundlerLogger: Logger = {
  log: (level, message, meta) =>
    level === 'WARN' || level === 'ERROR' ? Runtime.instance().logger.log(level, message, meta) : undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: (message, meta) => Runtime.instance().logger.warn(message, meta),
  error: (message, meta) => Runtime.instance().logger.error(message, meta),
};

/**
 * Bundles the workflow code once (another workflows module, such as a frozen old version, if given);
 * pass the result to several workers to skip re-bundling.
 */
export async function bundleTaskWorkflows(
  path: string = workflowsPath(),
  workflowInterceptorModules: readonly string[] = [],
): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({
    workflowsPath: path,
    workflowInterceptorModules: [...workflowInterceptorModules],
    failureConverterPath: failureConverterPath(),
    logger: bundlerLogger,
    // ESM sources import './x.js' for './x.ts'.
    webpackConfigHook: (config) => ({
      ...config,
      resolve: { ...config.resolve, extensionAlias: { '.js': ['.ts', '.js'] } },
    }),
  });
}

/** How long past the grace a stopping worker (cancelled callbacks recording their end) may take. */
export const SHUTDOWN_FORCE_MARGIN_MS = 5_000;

export async function createTaskWorkers(options: TaskWorkersOptions): Promise<Worker[]> {
  const { connection, namespace, taskQueue, policies, metrics } = options;
  const shutdownGraceMs = options.shutdownGraceMs ?? 35_000;
  const shutdown = {
    shutdownGraceTime: shutdownGraceMs,
    shutdownForceTime: shutdownGraceMs + SHUTDOWN_FORCE_MARGIN_MS,
  };
  const sinks: InjectedSinks<TaskSinks> = {
    taskMetrics: {
      finished: {
        fn: (_info, taskType, status) => metrics?.taskFinished(taskType, status),
        callDuringReplay: false,
      },
      occurrenceStarted: {
        fn: (_info, taskType, lagSeconds) => metrics?.occurrenceStarted(taskType, lagSeconds),
        callDuringReplay: false,
      },
    },
  };
  const { tracing } = options;
  const workflowBundle =
    options.workflowBundle ??
    (await bundleTaskWorkflows(workflowsPath(), tracing?.workflowInterceptorModules));
  const dataConverter = options.dataConverter ?? createDataConverter(undefined);
  // Tasks started before workflow shape v2 run on the shared queue until they end: keep polling it.
  const workflowWorker = Worker.create({
    connection,
    namespace,
    taskQueue,
    dataConverter,
    workflowBundle,
    // No activities here: only the workflow interceptors' span sink.
    sinks: { ...sinks, ...tracing?.workflowSinks },
    maxCachedWorkflows: options.maxCachedWorkflows ?? WORKER_DEFAULTS.maxCachedWorkflows,
    maxConcurrentWorkflowTaskExecutions:
      options.maxConcurrentWorkflowTasks ?? WORKER_DEFAULTS.maxConcurrentWorkflowTasks,
    ...shutdown,
  });
  const activities = {
    ...createActivities({
      headersFor: (taskType) => policies.forType(taskType)?.headers ?? {},
      ...options.callbackDeps,
      observer: metrics?.observer,
      ...(tracing && { traceSend: tracing.traceSend }),
    }),
    // Broker tasks' publishes: regular activities on the type's queue (src/workflows/delivery.ts).
    ...createBrokerActivities({
      pool: options.brokerPool ?? new BrokerPool(new Map()),
      ...(options.callbackDeps?.secrets && { secrets: options.callbackDeps.secrets }),
      ...(options.callbackDeps?.stopping && { stopping: options.callbackDeps.stopping }),
      ...(metrics && { observer: metrics.brokerObserver }),
    }),
  };
  // One worker per policy on the type's own queue. It runs the type's workflows started since
  // workflow shape v2 with their callbacks as local activities (its own workflow task and local
  // activity slots: a slow partner holds back only its type), and the regular callback activities
  // of tasks started before v2 and of rate-limited types.
  const typeWorkers = policies.all().map((policy) => {
    const workerOptions: WorkerOptions = {
      connection,
      namespace,
      taskQueue: typeQueue(taskQueue, policy.name),
      dataConverter,
      workflowBundle,
      sinks,
      activities,
      maxCachedWorkflows: options.maxCachedWorkflows ?? WORKER_DEFAULTS.maxCachedWorkflows,
      // A workflow task stays open while its local callback runs: bounded by the type's concurrency
      // (at least 2, sticky and normal polls), due tasks beyond it wait on the server, in priority order.
      maxConcurrentWorkflowTaskExecutions: Math.max(
        2,
        Math.min(
          policy.concurrency,
          options.maxConcurrentWorkflowTasks ?? WORKER_DEFAULTS.maxConcurrentWorkflowTasks,
        ),
      ),
      // Old tasks' regular callbacks only, for non-rate-limited types: few polls.
      activityTaskPollerBehavior: { type: 'simple-maximum', maximum: 2 },
      maxConcurrentActivityTaskExecutions: policy.concurrency,
      maxConcurrentLocalActivityExecutions: policy.concurrency,
      // Drain: a callback already sent gets its answer recorded rather than being cut off, and a
      // workflow task waiting on it completes (else the next worker would send it again).
      ...shutdown,
    };
    if (policy.ratePerSecond !== undefined) {
      // The server's limit holds across workers, but after a quiet spell it lets a second's worth
      // through at once on top of the steady rate. So each worker also spaces its polls at the rate
      // and keeps few of them waiting, as each takes a task at once: one per 20/s still reaches the
      // rate across a 50 ms round trip.
      workerOptions.maxTaskQueueActivitiesPerSecond = policy.ratePerSecond;
      workerOptions.maxActivitiesPerSecond = policy.ratePerSecond;
      workerOptions.activityTaskPollerBehavior = {
        type: 'simple-maximum',
        maximum: Math.min(policy.concurrency, 10, Math.ceil(policy.ratePerSecond / 20)),
      };
    }
    return Worker.create(withWorkerTracing(workerOptions, tracing));
  });
  return Promise.all([workflowWorker, ...typeWorkers]);
}

/** Runs every worker until all have stopped; a failure of one shuts the others down. */
export async function runWorkers(workers: readonly Worker[]): Promise<void> {
  try {
    await Promise.all(
      workers.map(async (worker) => {
        try {
          await worker.run();
        } catch (err) {
          for (const other of workers) if (other.getState() === 'RUNNING') other.shutdown();
          throw err;
        }
      }),
    );
  } finally {
    for (const worker of workers) if (worker.getState() === 'RUNNING') worker.shutdown();
  }
}
