/**
 * The only reader of `process.env`. Validates once at boot and returns a frozen, typed object.
 * Every key is documented in README.md and .env.example.
 */

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** Worker settings that `createTaskWorkers` also falls back on when its caller gives none. */
export const WORKER_DEFAULTS = { maxCachedWorkflows: 500, maxConcurrentWorkflowTasks: 100 } as const;

export interface Config {
  temporal: {
    /** host:port of the Temporal frontend. @defaultValue `localhost:7233` */
    address: string;
    /** @defaultValue `default` */
    namespace: string;
    /** Task queue of the task workflows; callback queues are derived from it. @defaultValue `delayed-tasks` */
    taskQueue: string;
    /** Temporal Cloud API key; implies TLS. */
    apiKey: string | undefined;
    /** TLS to the frontend; mTLS when a client certificate and key are given. */
    tls:
      | {
          serverName: string | undefined;
          caPath: string | undefined;
          certPath: string | undefined;
          keyPath: string | undefined;
        }
      | undefined;
    /** Deadline of one API call to Temporal; past it the API answers 503. @defaultValue 5000 */
    rpcTimeoutMs: number;
  };
  api: {
    /** @defaultValue `127.0.0.1` */
    host: string;
    /** @defaultValue 3000 */
    port: number;
  };
  worker: {
    /** Where the worker serves /healthz, /readyz and /metrics. @defaultValue `127.0.0.1` */
    host: string;
    /** @defaultValue 3001 */
    port: number;
    /** Loopback port of the SDK's own Prometheus exporter; /metrics on `port` includes its output. @defaultValue 9464 */
    sdkMetricsPort: number;
    /**
     * Workflow executions kept in the worker's sticky cache, about 0.5 MiB each: worker RSS stays near
     * 250 MiB + 0.5 MiB × this, however many tasks are pending (`npm run bench -- --scenario pending`).
     * A task is in the cache between its workflow tasks; once more tasks are waiting than it holds, a
     * task that fires replays its short history first. @defaultValue 500
     */
    maxCachedWorkflows: number;
    /** Workflow tasks processed at once. @defaultValue 100 */
    maxConcurrentWorkflowTasks: number;
    /** On SIGTERM, how long in-flight callbacks may take to finish before they are cancelled. @defaultValue 30000 */
    shutdownGraceMs: number;
  };
  limits: {
    /** Largest payload, serialized. @defaultValue 262144 (256 KiB) */
    maxPayloadBytes: number;
    /** Deepest nesting of payload objects and arrays; the payload itself is level 1. @defaultValue 5 */
    maxPayloadDepth: number;
    /** Furthest a task may be scheduled ahead. @defaultValue 7776000 (90 days) */
    maxScheduleAheadSeconds: number;
    /** How far in the past an `executeAt` may be (it then fires at once). @defaultValue 300 */
    maxPastSeconds: number;
  };
  auth: {
    /**
     * JSON file of API keys (`npm run keys -- create`). Unset: authentication is off, which the API
     * allows only on a loopback address; every request then acts as owner `default` with every scope.
     */
    keysFile: string | undefined;
    /** How often the keys file is checked for changes; 0: only on SIGHUP. @defaultValue 2000 */
    keysWatchIntervalMs: number;
    /** Requests per minute of a key that sets no `requestsPerMinute`, per API process. @defaultValue 6000 */
    requestsPerMinute: number;
    /** Failed authentications per minute from one client address before it gets 429. @defaultValue 30 */
    failuresPerMinute: number;
  };
  metrics: {
    /** When set, `/metrics` of the API requires `Authorization: Bearer <token>`. */
    token: string | undefined;
    /** When set, the API serves `/metrics` on this port (and `host`) only, not on the API's port. */
    port: number | undefined;
    /** @defaultValue `127.0.0.1` */
    host: string;
  };
  console: {
    /** Serve the operator console at `/console` (src/console/). @defaultValue false */
    enabled: boolean;
    /** Base address of Temporal's Web UI; task pages link their workflow there. Unset: no link. */
    temporalUiUrl: string | undefined;
  };
  /** Path of the task-type policy file; none means every type uses the default policy. */
  policiesFile: string | undefined;
  logLevel: LogLevel;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

type Env = Record<string, string | undefined>;

export function loadConfig(env: Env = process.env): Readonly<Config> {
  const problems: string[] = [];
  const read = new EnvReader(env, problems);
  const tlsWanted = read.bool('TEMPORAL_TLS', false);
  const certPath = read.optionalString('TEMPORAL_TLS_CERT_PATH');
  const keyPath = read.optionalString('TEMPORAL_TLS_KEY_PATH');
  const apiKey = read.optionalString('TEMPORAL_API_KEY');
  if ((certPath === undefined) !== (keyPath === undefined)) {
    problems.push('TEMPORAL_TLS_CERT_PATH and TEMPORAL_TLS_KEY_PATH go together: set both or neither');
  }
  const config: Config = {
    temporal: {
      address: read.string('TEMPORAL_ADDRESS', 'localhost:7233', /^[^\s:]+:\d{1,5}$/, 'host:port'),
      namespace: read.string('TEMPORAL_NAMESPACE', 'default', /^[A-Za-z0-9._-]{1,255}$/, 'a namespace name'),
      taskQueue: read.string('TASK_QUEUE', 'delayed-tasks', /^[A-Za-z0-9._-]{1,200}$/, 'a task queue name'),
      apiKey,
      tls:
        tlsWanted || certPath || apiKey
          ? {
              serverName: read.optionalString('TEMPORAL_TLS_SERVER_NAME'),
              caPath: read.optionalString('TEMPORAL_TLS_CA_PATH'),
              certPath,
              keyPath,
            }
          : undefined,
      rpcTimeoutMs: read.int('TEMPORAL_RPC_TIMEOUT_MS', 5000, 100, 120_000),
    },
    api: {
      host: read.string('HOST', '127.0.0.1', /^\S+$/, 'a host name or address'),
      port: read.int('PORT', 3000, 0, 65_535),
    },
    worker: {
      host: read.string('WORKER_HOST', '127.0.0.1', /^\S+$/, 'a host name or address'),
      port: read.int('WORKER_PORT', 3001, 0, 65_535),
      sdkMetricsPort: read.int('WORKER_SDK_METRICS_PORT', 9464, 1, 65_535),
      maxCachedWorkflows: read.int(
        'WORKER_MAX_CACHED_WORKFLOWS',
        WORKER_DEFAULTS.maxCachedWorkflows,
        0,
        1_000_000,
      ),
      maxConcurrentWorkflowTasks: read.int(
        'WORKER_MAX_CONCURRENT_WORKFLOW_TASKS',
        WORKER_DEFAULTS.maxConcurrentWorkflowTasks,
        2,
        10_000,
      ),
      shutdownGraceMs: read.int('WORKER_SHUTDOWN_GRACE_MS', 30_000, 0, 3_600_000),
    },
    limits: {
      maxPayloadBytes: read.int('MAX_PAYLOAD_BYTES', 256 * 1024, 1024, 2 * 1024 * 1024),
      maxPayloadDepth: read.int('MAX_PAYLOAD_DEPTH', 5, 1, 64),
      maxScheduleAheadSeconds: read.int(
        'MAX_SCHEDULE_AHEAD_SECONDS',
        90 * 24 * 3600,
        60,
        10 * 365 * 24 * 3600,
      ),
      maxPastSeconds: read.int('MAX_PAST_SECONDS', 300, 0, 24 * 3600),
    },
    auth: {
      keysFile: read.optionalString('API_KEYS_FILE'),
      keysWatchIntervalMs: read.int('API_KEYS_WATCH_INTERVAL_MS', 2000, 0, 3_600_000),
      requestsPerMinute: read.int('RATE_LIMIT_PER_MINUTE', 6000, 1, 10_000_000),
      failuresPerMinute: read.int('AUTH_FAILURES_PER_MINUTE', 30, 1, 1_000_000),
    },
    metrics: {
      token:
        read.string('METRICS_TOKEN', '', /^(|\S{16,})$/, 'at least 16 characters without spaces') ||
        undefined,
      port: read.optionalInt('METRICS_PORT', 1, 65_535),
      host: read.string('METRICS_HOST', '127.0.0.1', /^\S+$/, 'a host name or address'),
    },
    console: {
      enabled: read.bool('CONSOLE_ENABLED', false),
      temporalUiUrl:
        read.string('TEMPORAL_UI_URL', '', /^(|https?:\/\/\S+)$/, 'an http(s) URL').replace(/\/+$/, '') ||
        undefined,
    },
    policiesFile: read.optionalString('TASK_POLICIES_FILE'),
    logLevel: read.oneOf('LOG_LEVEL', 'info', LOG_LEVELS),
  };
  if (problems.length > 0) {
    throw new ConfigError(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
  }
  return deepFreeze(config);
}

class EnvReader {
  constructor(
    private readonly env: Env,
    private readonly problems: string[],
  ) {}

  private raw(key: string): string | undefined {
    const value = this.env[key]?.trim();
    return value === '' ? undefined : value;
  }

  optionalString(key: string): string | undefined {
    return this.raw(key);
  }

  string(key: string, fallback: string, pattern: RegExp, expected: string): string {
    const value = this.raw(key) ?? fallback;
    if (!pattern.test(value)) this.problems.push(`${key}=${JSON.stringify(value)} is not ${expected}`);
    return value;
  }

  int(key: string, fallback: number, min: number, max: number): number {
    const value = this.raw(key);
    if (value === undefined) return fallback;
    const parsed = Number(value);
    if (!/^-?\d+$/.test(value) || parsed < min || parsed > max) {
      this.problems.push(`${key}=${JSON.stringify(value)} is not a whole number from ${min} to ${max}`);
      return fallback;
    }
    return parsed;
  }

  optionalInt(key: string, min: number, max: number): number | undefined {
    return this.raw(key) === undefined ? undefined : this.int(key, min, min, max);
  }

  bool(key: string, fallback: boolean): boolean {
    const value = this.raw(key)?.toLowerCase();
    if (value === undefined) return fallback;
    if (['1', 'true', 'yes', 'on'].includes(value)) return true;
    if (['0', 'false', 'no', 'off'].includes(value)) return false;
    this.problems.push(`${key}=${JSON.stringify(value)} is not true or false`);
    return fallback;
  }

  oneOf<T extends string>(key: string, fallback: T, allowed: readonly T[]): T {
    const value = this.raw(key) ?? fallback;
    if (!(allowed as readonly string[]).includes(value)) {
      this.problems.push(`${key}=${JSON.stringify(value)} is not one of ${allowed.join(', ')}`);
      return fallback;
    }
    return value as T;
  }
}

function deepFreeze<T>(value: T): Readonly<T> {
  if (value && typeof value === 'object') {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
