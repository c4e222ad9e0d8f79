/**
 * API process entry point: owns the logger, the Temporal connection, listen and graceful close.
 */
import { createServer } from 'node:http';
import { KeyStore } from '../auth/key-store.js';
import { refusalWithoutKeys } from '../auth/secure-default.js';
import { loadConfig } from '../config/environment.js';
import { createLogger, orExit } from '../observability/logger.js';
import { loadPolicies } from '../task-types/policies.js';
import { CallbackGuard } from '../security/callback-guard.js';
import { ownersWithoutSigningSecret, WebhookSecrets } from '../security/webhook-secrets.js';
import { loadPayloadKeyring } from '../security/payload-codec.js';
import { apiConnection } from '../temporal/connection.js';
import { createDataConverter } from '../temporal/data-converter.js';
import { consoleRoutes } from '../console/plugin.js';
import { buildApp } from './app.js';
import { bearerMatches } from '../security/bearer-token.js';
import { applySocketTimeout, serverOptions } from '../http/server-timeouts.js';
import { ApiMetrics, SCHEDULE_TALLY_MAX, taskCountsReader } from './metrics.js';
import { ScheduleService } from '../schedules/service.js';
import { ApiShutdown } from './shutdown.js';
import { TaskService } from '../tasks/service.js';
import { LeaseTokens, leaseTokenSecret } from '../tasks/lease-token.js';
import { startTracing } from '../observability/tracing.js';

const config = loadConfig();
const logger = createLogger(config.logLevel, 'api');
for (const note of config.retired) logger.warn(note);

// Secure by default: no keys, no network. Checked before anything connects or listens.
const refusal = refusalWithoutKeys(config.api.host, config.auth.keysFile);
if (refusal) {
  logger.fatal(refusal);
  process.exit(1);
}
let keys: KeyStore | undefined;
if (config.auth.keysFile) {
  try {
    keys = new KeyStore(config.auth.keysFile, logger);
  } catch (err) {
    logger.fatal((err as Error).message);
    process.exit(1);
  }
  keys.watch(config.auth.keysWatchIntervalMs);
  logger.info({ keys: keys.current.size, path: keys.path }, 'API keys loaded');
  // Their callbacks would be held (never sent with another owner's secret): said at boot, not at the due time.
  let unsigned: string[] = [];
  try {
    unsigned = ownersWithoutSigningSecret(
      keys.current.entries.map((entry) => entry.owner),
      new WebhookSecrets({
        defaultSecrets: config.webhooks.defaultSecrets,
        secretsFile: config.webhooks.secretsFile,
      }),
    );
  } catch (err) {
    // The worker's file, read here for this warning only: the worker refuses to start on it.
    logger.warn(`cannot tell which owners have webhook signing secrets: ${(err as Error).message}`);
  }
  if (unsigned.length > 0) {
    logger.warn(
      { owners: unsigned },
      'owners with API keys but no webhook signing secret: their callbacks are held until one is added (npm run webhook-secrets -- create --owner <owner>)',
    );
  }
} else {
  logger.warn(
    { host: config.api.host },
    'authentication is off (no API_KEYS_FILE): every request acts as owner "default" with every scope; loopback only',
  );
}
const policies = orExit(logger, () => loadPolicies(config.policiesFile, new CallbackGuard(config.callbacks)));
// SIGHUP reloads the API keys; the policy file is read at start only (a restart applies a change).
process.on('SIGHUP', () => {
  keys?.reload('SIGHUP');
  logger.info({ keys: keys !== undefined }, 'SIGHUP: API keys reloaded if any; the task policy file is not');
});
// Lazy: the API starts (and /readyz says 503) while Temporal is down, and recovers when it is back.
const connection = apiConnection(config.temporal);
const keyring = orExit(logger, () => loadPayloadKeyring(config.encryption));
const dataConverter = createDataConverter(keyring);
// OTEL_* set: spans per request and per task start (nothing of OpenTelemetry is loaded otherwise).
const tracing = await startTracing(config.tracing, 'api');
const leaseSecret = leaseTokenSecret(
  config.leases.tokenKey,
  keyring ? keyring.keys.get(keyring.currentKeyId) : undefined,
);
if (leaseSecret.source === 'random') {
  logger.warn(
    'lease tokens are sealed with a key of this process (no LEASE_TOKEN_KEY, no payload encryption key): a lease is settled only through this API process',
  );
}
const tasks = new TaskService({
  connection,
  config,
  policies,
  dataConverter,
  leaseTokens: new LeaseTokens(leaseSecret.secret),
  ...(tracing && { clientInterceptors: tracing.clientInterceptors }),
});
const schedules = new ScheduleService({ connection, config, policies, dataConverter }, tasks);
const metrics = new ApiMetrics({
  readCounts: taskCountsReader(tasks.visibility, config.limits.maxScheduleAheadSeconds * 1000),
  ...(config.metrics.scheduleIntervalSeconds > 0 && {
    readScheduleTally: () => schedules.tally(SCHEDULE_TALLY_MAX),
    scheduleCacheMs: config.metrics.scheduleIntervalSeconds * 1000,
  }),
});
const codec = dataConverter.payloadCodecs?.[0];
const shutdown = new ApiShutdown({ ...config.shutdown, logger });
const app = await buildApp({
  config,
  tasks,
  schedules,
  metrics,
  logger,
  keys,
  draining: () => shutdown.draining,
  ...(codec ? { codec } : {}),
  ...(tracing && { traceRequests: tracing.traceRequests }),
});
// The console is the API's peer on the same app: same keys and failed-authentication gate.
if (config.console.enabled) await app.register(consoleRoutes, { config, tasks, schedules, keys });

// METRICS_PORT: /metrics on an interface of its own (e.g. a cluster-internal one), not on the API's.
const metricsServer =
  config.metrics.port === undefined
    ? undefined
    : createServer(serverOptions(config.http), (req, res) => {
        if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
          res.writeHead(404, { 'content-type': 'text/plain' }).end('only GET /metrics here\n');
          return;
        }
        if (
          config.metrics.token !== undefined &&
          !bearerMatches(req.headers.authorization, config.metrics.token)
        ) {
          res.writeHead(401, { 'www-authenticate': 'Bearer' }).end();
          return;
        }
        metrics.registry.metrics().then(
          (text) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
          (err: unknown) => {
            logger.error({ err }, 'metrics scrape failed');
            res.writeHead(500, { 'content-type': 'text/plain' }).end('# metrics unavailable\n');
          },
        );
      });

shutdown.onSignals(app, async () => {
  keys?.close();
  metricsServer?.close();
  await connection.close();
  // Last: the spans of the requests that just finished go out before the process ends.
  await tracing?.shutdown();
});

await app.listen({ host: config.api.host, port: config.api.port });
if (metricsServer && config.metrics.port !== undefined) {
  const { host, port } = config.metrics;
  applySocketTimeout(metricsServer, config.http);
  await new Promise<void>((resolve) => metricsServer.listen(port, host, resolve));
  logger.info({ metrics: `http://${host}:${port}/metrics` }, 'metrics served on their own port');
}
logger.info(
  {
    temporal: config.temporal.address,
    namespace: config.temporal.namespace,
    docs: `http://${config.api.host}:${config.api.port}/docs`,
  },
  'API started',
);
