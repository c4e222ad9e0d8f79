/**
 * Tracing is decided by the standard OTEL_* variables, read by src/config.ts alone, and costs nothing
 * when off: no OpenTelemetry module is loaded, no provider registered, no interceptor installed.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { withWorkerTracing } from '../../src/observability/tracing.js';

describe('tracing configuration', () => {
  it.each([
    { env: {}, enabled: false },
    { env: { OTEL_SERVICE_NAME: 'orders' }, enabled: false },
    {
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' },
      enabled: true,
      endpoint: 'http://collector:4318/v1/traces',
    },
    {
      env: { OTEL_TRACES_EXPORTER: 'otlp' },
      enabled: true,
      endpoint: 'http://localhost:4318/v1/traces',
    },
    {
      env: { OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' },
      enabled: true,
      endpoint: 'http://localhost:4317',
    },
    {
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://tempo:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' },
      enabled: true,
      endpoint: 'http://tempo:4317',
    },
    {
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example/otlp',
      },
      enabled: true,
      endpoint: 'https://traces.example/otlp',
    },
    {
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'none' },
      enabled: false,
    },
    {
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' },
      enabled: false,
    },
    { env: { OTEL_TRACES_EXPORTER: 'console' }, enabled: true },
  ])('$env: enabled $enabled', ({ env, enabled, endpoint }) => {
    const tracing = loadConfig(env).tracing;
    expect(tracing.enabled).toBe(enabled);
    if (endpoint) expect(tracing.endpoint).toBe(endpoint);
  });

  it('reads headers, resource attributes and the sampler', () => {
    const tracing = loadConfig({
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-scope-orgid=team%20a,authorization=Bearer%20t0ken',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-scope-orgid=team-b',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=prod',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
    }).tracing;
    expect(tracing.headers).toEqual({ 'x-scope-orgid': 'team-b', authorization: 'Bearer t0ken' });
    expect(tracing.resourceAttributes).toEqual({ 'deployment.environment': 'prod' });
    expect([tracing.sampler, tracing.samplerRatio]).toEqual(['parentbased_traceidratio', 0.25]);
  });

  it.each([
    [{ OTEL_TRACES_EXPORTER: 'jaeger' }, /OTEL_TRACES_EXPORTER="jaeger" is not one of/],
    [{ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }, /OTEL_EXPORTER_OTLP_PROTOCOL="http\/json" is not one of/],
    [
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' },
      /OTEL_EXPORTER_OTLP_ENDPOINT="collector:4318" is not an http/,
    ],
    [{ OTEL_TRACES_SAMPLER_ARG: '1.5' }, /OTEL_TRACES_SAMPLER_ARG="1.5" is not a ratio/],
  ])('refuses %j at boot', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('names a bad header list without echoing it (it carries credentials)', () => {
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_HEADERS: 'Bearer s3cr3t-value' })).toThrow(
      /OTEL_EXPORTER_OTLP_HEADERS is not a list of key=value pairs/,
    );
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_HEADERS: 'Bearer s3cr3t-value' })).not.toThrow(/s3cr3t/);
  });
});

/**
 * Loads what the API and the worker load, starts tracing from `env` as their entry points do, and
 * says which OpenTelemetry modules were loaded (CommonJS packages: Node's require cache lists them
 * even when imported from ES modules) and whether a global tracer provider was registered.
 */
function loadedWith(env: Record<string, string>): { started: boolean; loaded: string[]; global: boolean } {
  const script = `
    import { createRequire } from 'node:module';
    const { loadConfig } = await import('./src/config.ts');
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
