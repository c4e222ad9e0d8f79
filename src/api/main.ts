/**
 * API process entry point: owns the logger, the Temporal connection, listen and graceful close.
 */
import { Connection } from '@temporalio/client';
import { loadConfig } from '../config.js';
import { createLogger } from '../observability/logger.js';
import { loadPolicies } from '../policies.js';
import { connectionOptions } from '../temporal/connection.js';
import { buildApp } from './app.js';
import { ApiMetrics, taskCountsReader } from './metrics.js';
import { TaskService } from './task-service.js';

const config = loadConfig();
const logger = createLogger(config.logLevel, 'api');
const policies = loadPolicies(config.policiesFile);
// Lazy: the API starts (and /readyz says 503) while Temporal is down, and recovers when it is back.
const connection = Connection.lazy(connectionOptions(config.temporal));
const tasks = new TaskService({ connection, config, policies });
const metrics = new ApiMetrics({
  readCounts: taskCountsReader(tasks, config.limits.maxScheduleAheadSeconds * 1000),
});
const app = await buildApp({ config, tasks, metrics, logger });

let closing = false;
async function close(signal: string): Promise<void> {
  if (closing) return;
  closing = true;
  logger.info({ signal }, 'shutting down: finishing in-flight requests');
  await app.close();
  await connection.close();
}
process.on('SIGTERM', () => void close('SIGTERM'));
process.on('SIGINT', () => void close('SIGINT'));

await app.listen({ host: config.api.host, port: config.api.port });
logger.info(
  {
    temporal: config.temporal.address,
    namespace: config.temporal.namespace,
    docs: `http://${config.api.host}:${config.api.port}/docs`,
  },
  'API started',
);
