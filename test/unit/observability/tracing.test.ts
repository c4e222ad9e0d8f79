/**
 * Tracing costs nothing when off: no OpenTelemetry module is loaded, no provider registered, no
 * interceptor or sink installed (the OTEL_* variables: test/unit/config/environment.tracing.test.ts).
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { withWorkerTracing } from '../../../src/observability/tracing.js';

/**
 * Loads what the API and the worker load, starts tracing from `env` as their entry points do, and
 * says which OpenTelemetry modules were loaded (CommonJS packages: Node's require cache lists them
 * even when imported from ES modules) and whether a global tracer provider was registered.
 */
function loadedWith(env: Record<string, string>): { started: boolean; loaded: string[]; global: boolean } {
  const script = `
    import { createRequire } from 'node:module';
    const { loadConfig } = await import('./src/config/environment.ts');
    await import('./src/worker/workers.ts');
    await import('./src/api/app.ts');
    await import('./src/tasks/service.ts');
    await import('./src/activities/callback.ts');
    const { startTracing } = await import('./src/observability/tracing.ts');
    const tracing = await startTracing(loadConfig(${JSON.stringify(env)}).tracing, 'worker');
    const loaded = Object.keys(createRequire(import.meta.url).cache)
      .filter((path) => /[\\\\/]@opentelemetry[\\\\/]|interceptors-opentelemetry/.test(path))
      .map((path) => path.replace(/.*node_modules[\\\\/]/, ''));
    const global = globalThis[Symbol.for('opentelemetry.js.api.1')] !== undefined;
    await tracing?.shutdown();
    console.log(JSON.stringify({ started: tracing !== undefined, loaded, global }));
  `;
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '' },
    timeout: 60_000,
  });
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout.trim().split('\n').at(-1)!) as ReturnType<typeof loadedWith>;
}

describe('tracing off', () => {
  it('loads no OpenTelemetry module and registers no provider', () => {
    expect(loadedWith({})).toEqual({ started: false, loaded: [], global: false });
  });

  it('the same check sees them when tracing is on (it can fail)', () => {
    const on = loadedWith({ OTEL_TRACES_EXPORTER: 'console' });
    expect(on.started).toBe(true);
    expect(on.global).toBe(true);
    expect(on.loaded).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^@opentelemetry\/sdk-trace-node/),
        expect.stringMatching(/^@temporalio\/interceptors-opentelemetry/),
      ]),
    );
  });

  it('installs no interceptor and no sink: the worker options are the very same object', () => {
    const options = { taskQueue: 'q', sinks: {} };
    expect(withWorkerTracing(options, undefined)).toBe(options);
  });
});
