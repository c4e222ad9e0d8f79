/**
 * Writes docs/openapi.json: the API's OpenAPI document, generated from the routes' TypeBox schemas
 * (the one source of the wire contract). The SDKs' wire-type tests read the committed file, and
 * test/unit/api/app.openapi.test.ts fails when it is stale. `npm run openapi` rewrites it; `--check` only
 * compares. No Temporal is needed: the app is built against an unreachable address and never listens.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../src/api/app.js';
import { ApiMetrics } from '../src/api/metrics.js';
import { ScheduleService } from '../src/schedules/service.js';
import { TaskService } from '../src/tasks/service.js';
import { loadConfig } from '../src/config/environment.js';
import { Policies } from '../src/task-types/policies.js';
import { apiConnection } from '../src/temporal/connection.js';

export const OPENAPI_PATH = fileURLToPath(new URL('../docs/openapi.json', import.meta.url));

/** The document as committed: two-space JSON with a final newline. */
export async function renderOpenApi(): Promise<string> {
  const config = loadConfig({ TEMPORAL_ADDRESS: '127.0.0.1:1' });
  const connection = apiConnection(config.temporal);
  const policies = new Policies();
  const tasks = new TaskService({ connection, config, policies });
  const schedules = new ScheduleService({ connection, config, policies });
  const metrics = new ApiMetrics({ readCounts: async () => ({ byStatus: {}, oldestOverdueSeconds: 0 }) });
  const app = await buildApp({ config, tasks, schedules, metrics });
  try {
    await app.ready();
    return `${JSON.stringify(app.swagger(), null, 2)}\n`;
  } finally {
    await app.close();
    await connection.close().catch(() => undefined);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const rendered = await renderOpenApi();
  if (process.argv.includes('--check')) {
    const committed = readFileSync(OPENAPI_PATH, 'utf8');
    if (committed !== rendered) {
      console.error('docs/openapi.json is stale: run `npm run openapi`');
      process.exit(1);
    }
  } else {
    writeFileSync(OPENAPI_PATH, rendered);
    console.log(`wrote ${OPENAPI_PATH}`);
  }
}
