import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config/environment.js';
import { PolicyError, Policies } from '../../../src/task-types/policies.js';

describe('loadConfig', () => {
  it('applies defaults and freezes the result', () => {
    const config = loadConfig({});
    expect(config.temporal).toMatchObject({
      address: 'localhost:7233',
      namespace: 'default',
      taskQueue: 'delayed-tasks',
      tls: undefined,
    });
    expect(config.api).toEqual({ host: '127.0.0.1', port: 3000 });
    expect(config.limits).toEqual({
      maxPayloadBytes: 262_144,
      maxPayloadDepth: 5,
      maxScheduleAheadSeconds: 7_776_000,
      maxPastSeconds: 300,
    });
    expect(Object.isFrozen(config.limits)).toBe(true);
    expect(config.auth).toEqual({
      keysFile: undefined,
      keysWatchIntervalMs: 2000,
      requestsPerMinute: 6000,
      failuresPerMinute: 30,
      failuresPerMinuteGlobal: 600,
    });
    // No proxy is trusted and no HSTS is pinned on a laptop's first run.
    expect(config.http).toEqual({
      trustProxy: [],
      hstsMaxAgeSeconds: 0,
      requestTimeoutMs: 60_000,
      headersTimeoutMs: 10_000,
      keepAliveTimeoutMs: 5_000,
      connectionTimeoutMs: 60_000,
    });
    expect(config.metrics).toEqual({
      token: undefined,
      port: undefined,
      host: '127.0.0.1',
      scheduleIntervalSeconds: 60,
    });
  });

  it('reads the authentication and metrics keys', () => {
    const config = loadConfig({
      API_KEYS_FILE: '/etc/dts/keys.json',
      API_KEYS_WATCH_INTERVAL_MS: '0',
      RATE_LIMIT_PER_MINUTE: '120',
      AUTH_FAILURES_PER_MINUTE: '5',
      METRICS_TOKEN: 'a-long-enough-token',
      METRICS_PORT: '9100',
      METRICS_HOST: '10.0.0.5',
      SCHEDULE_METRICS_INTERVAL_SECONDS: '0',
    });
    expect(config.auth).toEqual({
      keysFile: '/etc/dts/keys.json',
      keysWatchIntervalMs: 0,
      requestsPerMinute: 120,
      failuresPerMinute: 5,
      failuresPerMinuteGlobal: 600,
    });
    expect(config.metrics).toEqual({
      token: 'a-long-enough-token',
      port: 9100,
      host: '10.0.0.5',
      scheduleIntervalSeconds: 0,
    });
  });

  it.each([
    { env: { PORT: 'eighty' }, message: 'PORT="eighty" is not a whole number from 0 to 65535' },
    { env: { PORT: '70000' }, message: 'PORT="70000"' },
    { env: { TEMPORAL_ADDRESS: 'localhost' }, message: 'TEMPORAL_ADDRESS="localhost" is not host:port' },
    { env: { LOG_LEVEL: 'loud' }, message: 'LOG_LEVEL="loud" is not one of' },
    { env: { TEMPORAL_TLS: 'maybe' }, message: 'TEMPORAL_TLS="maybe" is not true or false' },
    { env: { TEMPORAL_TLS_CERT_PATH: '/c.pem' }, message: 'go together' },
    { env: { METRICS_TOKEN: 'short' }, message: 'METRICS_TOKEN="short" is not at least 16 characters' },
    { env: { METRICS_PORT: '0' }, message: 'METRICS_PORT="0" is not a whole number from 1 to 65535' },
    { env: { RATE_LIMIT_PER_MINUTE: '0' }, message: 'RATE_LIMIT_PER_MINUTE="0"' },
  ])('rejects $env with a clear message', ({ env, message }) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('reports every bad value at once', () => {
    expect(() => loadConfig({ PORT: 'x', MAX_PAYLOAD_DEPTH: '0' })).toThrow(/PORT[\s\S]*MAX_PAYLOAD_DEPTH/);
  });

  it('names a retired setting that is still set, and reads nothing of it', () => {
    expect(loadConfig({}).retired).toEqual([]);
    const [note, ...rest] = loadConfig({ TASK_START_DELAY: 'true' }).retired;
    expect(rest).toEqual([]);
    expect(note).toMatch(/^TASK_START_DELAY is no longer read: every task starts at once/);
    expect(loadConfig({ TASK_START_DELAY: 'true' }).temporal).toEqual(loadConfig({}).temporal);
  });

  it('reads the shutdown grace and not-ready period in seconds; the old worker grace is retired', () => {
    expect(loadConfig({}).shutdown).toEqual({ graceMs: 35_000, notReadyMs: 5_000 });
    expect(loadConfig({ SHUTDOWN_GRACE_SECONDS: '60', SHUTDOWN_NOT_READY_SECONDS: '0' }).shutdown).toEqual({
      graceMs: 60_000,
      notReadyMs: 0,
    });
    expect(() => loadConfig({ SHUTDOWN_GRACE_SECONDS: '5000' })).toThrow(
      'SHUTDOWN_GRACE_SECONDS="5000" is not a whole number from 0 to 3600',
    );
    const retired = loadConfig({ WORKER_SHUTDOWN_GRACE_MS: '60000' });
    expect(retired.retired).toEqual([
      expect.stringMatching(/^WORKER_SHUTDOWN_GRACE_MS .*SHUTDOWN_GRACE_SECONDS/),
    ]);
    expect(retired.shutdown.graceMs).toBe(35_000);
  });

  it('turns TLS on with an API key', () => {
    expect(loadConfig({ TEMPORAL_API_KEY: 'k' }).temporal.tls).toBeDefined();
  });
});

describe('Policies', () => {
  it('gives undeclared types the default policy unless strict', () => {
    expect(new Policies().forType('x')?.name).toBe('_default');
    expect(new Policies({ strict: true, taskTypes: { a: {} } }).forType('x')).toBeUndefined();
    expect(new Policies({ strict: true, taskTypes: { a: {} } }).forType('a')?.name).toBe('a');
  });

  it('inherits from the default section and caps defaults at the max', () => {
    const policies = new Policies({
      default: { concurrency: 7, maxRetries: { max: 2 } },
      taskTypes: { a: { ratePerSecond: 3 } },
    });
    expect(policies.forType('a')).toMatchObject({
      concurrency: 7,
      ratePerSecond: 3,
      maxRetries: { default: 2, max: 2 },
    });
    expect(policies.all().map((p) => p.name)).toEqual(['_default', 'a']);
  });

  it.each([
    { file: { taskTypes: { 'Bad Name': {} } }, message: 'taskTypes' },
    { file: { taskTypes: { a: { concurrency: 0 } } }, message: 'taskTypes.a.concurrency' },
    { file: { taskTypes: { a: { callbackUrl: 'ftp://x' } } }, message: 'callbackUrl' },
    {
      file: { taskTypes: { a: { maxRetries: { default: 9, max: 3 } } } },
      message: 'maxRetries.default (9) exceeds',
    },
    { file: { extra: true }, message: 'extra is not a known field' },
  ])('rejects $file', ({ file, message }) => {
    expect(() => new Policies(file as never)).toThrow(PolicyError);
    expect(() => new Policies(file as never)).toThrow(message);
  });
});
