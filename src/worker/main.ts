/**
 * Worker process entry point: runs the task workflows and the callbacks. Scale out by running more.
 * SIGTERM/SIGINT: stop polling, let in-flight callbacks finish, then exit.
 */
import type { AddressInfo } from 'node:net';
import { NativeConnection, Runtime } from '@temporalio/worker';
import { loadConfig } from '../config/environment.js';
import { createLogger, orExit, PinoTemporalLogger } from '../observability/logger.js';
import { loadPolicies } from '../task-types/policies.js';
import { CallbackGuard } from '../security/callback-guard.js';
import { connectionOptions } from '../temporal/connection.js';
import { loadPayloadKeyring } from '../security/payload-codec.js';
import { createDataConverter } from '../temporal/data-converter.js';
import { startWorkerHttp } from './http.js';
import { WorkerMetrics } from './metrics.js';
import { workerReadiness } from './readiness.js';
import { WorkerShutdown } from './shutdown.js';
import { callbackDepsFromConfig, createTaskWorkers, runWorkers } from './workers.js';
import { BrokerPool } from '../activities/brokers/pool.js';
import { startTracing } from '../observability/tracing.js';

const config = loadConfig();
const logger = createLogger(config.logLevel, 'worker');
for (const note of config.retired) logger.warn(note);
const policies = orExit(logger, () => loadPolicies(config.policiesFile, new CallbackGuard(config.callbacks)));
const sdkMetricsAddress = `127.0.0.1:${config.worker.sdkMetricsPort}`;

Runtime.install({
  logger: new PinoTemporalLogger(logger),
  telemetryOptions: {
    metrics: {
      prometheus: {
        bindAddress: sdkMetricsAddress,
        countersTotalSuffix: true,
        unitSuffix: true,
        useSecondsForDurations: true,
      },
    },
  },
  shutdownSignals: [],
});

// A missing or broken secrets file stops the start with one line naming it (not a stack trace).
const callbackDeps = orExit(logger, () => callbackDepsFromConfig(config));
if (!config.webhooks.secretsFile && config.webhooks.defaultSecrets.length === 0) {
  // Every callback is signed: with no secret anywhere, every due task would be held. Our fault, said
  // at once rather than discovered task by task.
  logger.fatal(
    'no webhook signing secret: set WEBHOOK_SECRET (the default owner) or WEBHOOK_SECRETS_FILE (per owner); refusing to start',
  );
  process.exit(1);
}
if (!callbackDeps.secrets?.configured) {
  logger.warn(
    `${config.webhooks.secretsFile} has no secret yet: callbacks are held (no attempt spent) until owners get theirs`,
  );
}
const keyring = orExit(logger, () => loadPayloadKeyring(config.encryption));
const metrics = new WorkerMetrics();
const shutdown = new WorkerShutdown({ graceMs: config.shutdown.graceMs, logger });
// OTEL_* set: workflow, activity and callback spans (nothing of OpenTelemetry is loaded otherwise).
const tracing = await startTracing(config.tracing, 'worker');
const connection = await NativeConnection.connect(connectionOptions(config.temporal));
// One connection per declared broker, opened on first use (BROKERS_FILE; docs/brokers.md).
const brokerPool = new BrokerPool(config.brokers);
const workers = await createTaskWorkers({
  connection,
  namespace: config.temporal.namespace,
  taskQueue: config.temporal.taskQueue,
  policies,
  metrics,
  maxCachedWorkflows: config.worker.maxCachedWorkflows,
  maxConcurrentWorkflowTasks: config.worker.maxConcurrentWorkflowTasks,
  shutdownGraceMs: config.shutdown.graceMs,
  callbackDeps: { ...callbackDeps, stopping: shutdown.graceOver },
  dataConverter: createDataConverter(keyring),
  tracing,
  brokerPool,
});

const http = await startWorkerHttp({
  host: config.worker.host,
  port: config.worker.port,
  logger,
  metricsToken: config.metrics.token,
  timeouts: config.http,
  ready: workerReadiness({
    workers: () => workers,
    checkTemporal: () =>
      connection.withDeadline(Date.now() + config.temporal.rpcTimeoutMs, () =>
        connection.workflowService.describeNamespace({ namespace: config.temporal.namespace }),
      ),
    timeoutMs: config.temporal.rpcTimeoutMs,
  }),
  metrics: async () => {
    const own = await metrics.registry.metrics();
    const sdk = await fetch(`http://${sdkMetricsAddress}/metrics`, { signal: AbortSignal.timeout(2000) })
      .then((res) => res.text())
      .catch(() => '# Temporal SDK metrics unavailable\n');
    return `${own}\n${sdk}`;
  },
});
const { port } = http.address() as AddressInfo;

shutdown.onSignals(workers);
// Not the default (exit): the policy file is read at start only; the webhook secrets file is watched.
process.on('SIGHUP', () =>
  logger.warn('SIGHUP ignored: the worker reloads nothing on it; restart it to apply a changed policy file'),
);

logger.info(
  {
    temporal: config.temporal.address,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    callbackQueues: workers.length - 1,
    http: `http://${config.worker.host}:${port}`,
  },
  'worker started',
);
try {
  await runWorkers(workers);
  logger.info('worker stopped');
} catch (err) {
  logger.error({ err }, 'worker failed');
  process.exitCode = 1;
} finally {
  http.close();
  // The workers have drained: publishes still in flight finish, then the broker connections close.
  await brokerPool.close();
  await connection.close();
  await tracing?.shutdown();
}
