/**
 * The API app as src/api/main.ts composes it: the JSON API, and the console as its peer when
 * CONSOLE_ENABLED is set.
 */
import type { FastifyInstance } from 'fastify';
import { buildApp, type AppOptions } from '../../src/api/app.js';
import { consoleRoutes } from '../../src/console/plugin.js';

export async function buildServer(options: AppOptions): Promise<FastifyInstance> {
  const app = await buildApp(options);
  const { config, tasks, schedules, keys } = options;
  if (config.console.enabled) await app.register(consoleRoutes, { config, tasks, schedules, keys });
  return app;
}
