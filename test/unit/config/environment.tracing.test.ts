/**
 * The standard OTEL_* variables, read here and nowhere else: tracing stays off unless an exporter or
 * an endpoint is named, and a bad value stops the process at boot.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/environment.js';

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
