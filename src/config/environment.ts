/**
 * The only reader of `process.env`. Validates once at boot and returns a frozen, typed object.
 * Every key is documented in docs/configuration.md and .env.example
 * (test/unit/config/environment.docs.test.ts checks both ways).
 */

import { isIP } from 'node:net';
import { parseAllowCidr, parseCidr } from '../security/address-rules.js';
import { isWebhookSecret } from '../security/webhook-signature.js';
import { DEFAULT_TASK_QUEUE } from '../shared/task-queues.js';
import { EnvReader, type Env } from './env-reader.js';
import { readTracing, type TracingConfig } from './tracing.js';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** Worker settings that `createTaskWorkers` also falls back on when its caller gives none. */
export const WORKER_DEFAULTS = { maxCachedWorkflows: 500, maxConcurrentWorkflowTasks: 100 } as const;

/** How long the HTTP servers wait for a client (`Config.http`), defaults of the four settings. */
export const HTTP_TIMEOUT_DEFAULTS = {
  requestTimeoutMs: 60_000,
  headersTimeoutMs: 10_000,
  keepAliveTimeoutMs: 5_000,
  connectionTimeoutMs: 60_000,
} as const;

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
  };
  shutdown: {
    /**
     * After SIGTERM or SIGINT, how long work in flight may take to finish: the worker's callback
     * attempts (then cancelled), the API's requests (then cut off). Set the pod's termination grace
     * above it (plus `notReadyMs` for the API). @defaultValue 35000 (the default 30 s attempt timeout, and room to record it)
     */
    graceMs: number;
    /**
     * API only: after SIGTERM, how long it answers `/readyz` 503 while still serving, before it
     * stops accepting, so that load balancers take it out of rotation first. SIGINT skips it. @defaultValue 5000
     */
    notReadyMs: number;
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
  /** Pull delivery (docs/workers.md). */
  leases: {
    /** Shortest `delivery.leaseSeconds` a task may ask for. @defaultValue 5 */
    minSeconds: number;
    /** Longest `delivery.leaseSeconds` a task may ask for. @defaultValue 3600 */
    maxSeconds: number;
    /**
     * Base64 of at least 32 bytes: the key lease tokens are sealed with (HKDF, label `lease-token`).
     * Unset: derived from the current payload encryption key, else a random key per process.
     */
    tokenKey: string | undefined;
  };
  schedules: {
    /** Most schedules one owner may have; a create beyond answers 409 SCHEDULE_LIMIT_EXCEEDED. @defaultValue 100 */
    maxPerOwner: number;
    /**
     * Shortest interval between a schedule's runs (`every`, and the closest two runs of a `cron`): a
     * 1-second schedule is 86,400 tasks a day. @defaultValue 60
     */
    minIntervalSeconds: number;
    /** Most occurrences one backfill may start. @defaultValue 1000 */
    maxBackfillRuns: number;
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
    /**
     * Failed authentications per minute from one client (an IPv4 address, an IPv6 /64) before its
     * next failure gets 429; a valid credential is never refused for them. @defaultValue 30
     */
    failuresPerMinute: number;
    /** Failed authentications per minute from all clients together (a guess spread over many addresses). @defaultValue 600 */
    failuresPerMinuteGlobal: number;
  };
  http: {
    /**
     * Proxies (CIDRs or addresses) whose `X-Forwarded-For` and `X-Forwarded-Proto` are believed: the
     * client address for failed-login limits and logs, https for the console's Secure cookie. Empty:
     * none, the peer address is the client. @defaultValue none
     */
    trustProxy: string[];
    /** Send `Strict-Transport-Security` (max-age in seconds) on answers served over https. @defaultValue 0 (off) */
    hstsMaxAgeSeconds: number;
    /**
     * Longest a client may take to send a whole request, headers and body; past it the socket is
     * closed. Bounds a client that drips its request a byte at a time. @defaultValue 60000
     */
    requestTimeoutMs: number;
    /** Longest a client may take to send a request's headers (at most `requestTimeoutMs`). @defaultValue 10000 */
    headersTimeoutMs: number;
    /**
     * How long an idle keep-alive connection stays open after an answer. Behind a load balancer,
     * set it above the balancer's idle timeout (AWS ALB: 60 s). @defaultValue 5000
     */
    keepAliveTimeoutMs: number;
    /** A socket on which nothing moves either way this long is closed. @defaultValue 60000 */
    connectionTimeoutMs: number;
  };
  metrics: {
    /** When set, `/metrics` of the API requires `Authorization: Bearer <token>`. */
    token: string | undefined;
    /** When set, the API serves `/metrics` on this port (and `host`) only, not on the API's port. */
    port: number | undefined;
    /** @defaultValue `127.0.0.1` */
    host: string;
    /**
     * The API's schedule gauges are read (a describe of every schedule, at most 500) at most this
     * often; 0: no schedule gauges. @defaultValue 60
     */
    scheduleIntervalSeconds: number;
  };
  console: {
    /** Serve the operator console at `/console` (src/console/). @defaultValue false */
    enabled: boolean;
    /** Base address of Temporal's Web UI; task pages link their workflow there. Unset: no link. */
    temporalUiUrl: string | undefined;
    /**
     * Prometheus that scrapes the workers: the console shows fire lag and attempts per task type from
     * it. Unset: that panel is hidden (the page says so).
     */
    prometheusUrl: string | undefined;
    /**
     * Secrets that sign console session cookies (HMAC-SHA256), the first one signing, every one
     * verifying (rotation). Every API process behind one address needs the same list. Empty: a
     * random secret per process, so a session works only on the process that made it.
     */
    sessionSecrets: readonly string[];
    /** Lifetime of a console session. @defaultValue 28800 (8 hours) */
    sessionTtlSeconds: number;
  };
  /** Path of the task-type policy file; none means every type uses the default policy. */
  policiesFile: string | undefined;
  logLevel: LogLevel;
  /** Settings still set that this version no longer reads, each with what became of it: said at boot. */
  retired: readonly string[];
  // --- security: SSRF guard, webhook signatures, payload encryption, codec endpoint ---
  callbacks: {
    /** CIDRs callbacks may reach although the SSRF rules refuse them (never metadata addresses). */
    allowCidrs: readonly string[];
    /** Host names (exact or `*.domain`) that may resolve to refused addresses (never metadata). */
    allowHosts: readonly string[];
    /** Refuse `http:` callback URLs. @defaultValue false */
    httpsOnly: boolean;
    /** Most bytes of a callback's response body read before the connection is dropped. @defaultValue 65536 */
    maxResponseBytes: number;
  };
  webhooks: {
    /** Signing secrets (`whsec_...`) of the `default` owner, the first one current. */
    defaultSecrets: readonly string[];
    /** JSON file `{"owners": {"<owner>": ["whsec_new", "whsec_old"]}}`, re-read when it changes. */
    secretsFile: string | undefined;
  };
  encryption: {
    /** Keys given inline (`PAYLOAD_ENCRYPTION_KEYS=id:base64,...`), base64 of 32 bytes each. */
    keys: Readonly<Record<string, string>>;
    /** Key new payloads are encrypted with. */
    currentKeyId: string | undefined;
    /** JSON file `{"current": "<id>", "keys": {"<id>": "<base64>"}}`; merged with `keys`. */
    keysFile: string | undefined;
  };
  codec: {
    /** Bearer token the codec endpoint requires; unset: only loopback clients may call it. */
    authToken: string | undefined;
    /** Origins (the Web UI's) allowed to call the codec endpoint from a browser. */
    corsOrigins: readonly string[];
  };
  /** OpenTelemetry traces from the standard `OTEL_*` variables (src/observability/tracing.ts). */
  tracing: TracingConfig;
}

const RETIRED: Readonly<Record<string, string>> = {
  TASK_START_DELAY:
    'every task starts at once and sleeps in a workflow timer; tasks started with a start delay before keep working (docs/architecture.md, "Start delay (retired)")',
  WORKER_SHUTDOWN_GRACE_MS: 'set SHUTDOWN_GRACE_SECONDS (default 35), which both processes read',
};

export class ConfigError extends Error {
  override name = 'ConfigError';
}

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
      taskQueue: read.string(
        'TASK_QUEUE',
        DEFAULT_TASK_QUEUE,
        /^[A-Za-z0-9._-]{1,200}$/,
        'a task queue name',
      ),
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
    },
    shutdown: {
      graceMs: read.int('SHUTDOWN_GRACE_SECONDS', 35, 0, 3600) * 1000,
      notReadyMs: read.int('SHUTDOWN_NOT_READY_SECONDS', 5, 0, 600) * 1000,
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
    leases: {
      minSeconds: read.int('LEASE_MIN_SECONDS', 5, 1, 3600),
      maxSeconds: read.int('LEASE_MAX_SECONDS', 3600, 1, 24 * 3600),
      tokenKey: read.optionalString('LEASE_TOKEN_KEY'),
    },
    schedules: {
      maxPerOwner: read.int('SCHEDULES_MAX_PER_OWNER', 100, 0, 1_000_000),
      minIntervalSeconds: read.int('SCHEDULE_MIN_INTERVAL_SECONDS', 60, 1, 86_400),
      maxBackfillRuns: read.int('SCHEDULE_MAX_BACKFILL_RUNS', 1000, 1, 100_000),
    },
    auth: {
      keysFile: read.optionalString('API_KEYS_FILE'),
      keysWatchIntervalMs: read.int('API_KEYS_WATCH_INTERVAL_MS', 2000, 0, 3_600_000),
      requestsPerMinute: read.int('RATE_LIMIT_PER_MINUTE', 6000, 1, 10_000_000),
      failuresPerMinute: read.int('AUTH_FAILURES_PER_MINUTE', 30, 1, 1_000_000),
      failuresPerMinuteGlobal: read.int('AUTH_FAILURES_PER_MINUTE_GLOBAL', 600, 1, 10_000_000),
    },
    http: {
      trustProxy: read.list(
        'TRUST_PROXY',
        (value) => parseCidr(value) !== undefined || isIP(value) !== 0,
        'a CIDR or an address',
      ),
      hstsMaxAgeSeconds: read.int('HSTS_MAX_AGE_SECONDS', 0, 0, 2 * 365 * 24 * 3600),
      requestTimeoutMs: read.int(
        'HTTP_REQUEST_TIMEOUT_MS',
        HTTP_TIMEOUT_DEFAULTS.requestTimeoutMs,
        100,
        3_600_000,
      ),
      headersTimeoutMs: read.int(
        'HTTP_HEADERS_TIMEOUT_MS',
        HTTP_TIMEOUT_DEFAULTS.headersTimeoutMs,
        100,
        3_600_000,
      ),
      keepAliveTimeoutMs: read.int(
        'HTTP_KEEP_ALIVE_TIMEOUT_MS',
        HTTP_TIMEOUT_DEFAULTS.keepAliveTimeoutMs,
        100,
        3_600_000,
      ),
      connectionTimeoutMs: read.int(
        'HTTP_CONNECTION_TIMEOUT_MS',
        HTTP_TIMEOUT_DEFAULTS.connectionTimeoutMs,
        100,
        3_600_000,
      ),
    },
    metrics: {
      token:
        read.string('METRICS_TOKEN', '', /^(|\S{16,})$/, 'at least 16 characters without spaces') ||
        undefined,
      port: read.optionalInt('METRICS_PORT', 1, 65_535),
      host: read.string('METRICS_HOST', '127.0.0.1', /^\S+$/, 'a host name or address'),
      scheduleIntervalSeconds: read.int('SCHEDULE_METRICS_INTERVAL_SECONDS', 60, 0, 86_400),
    },
    console: {
      enabled: read.bool('CONSOLE_ENABLED', false),
      temporalUiUrl:
        read.string('TEMPORAL_UI_URL', '', /^(|https?:\/\/\S+)$/, 'an http(s) URL').replace(/\/+$/, '') ||
        undefined,
      prometheusUrl:
        read.string('PROMETHEUS_URL', '', /^(|https?:\/\/\S+)$/, 'an http(s) URL').replace(/\/+$/, '') ||
        undefined,
      sessionSecrets: read.list(
        'CONSOLE_SESSION_SECRET',
        (value) => value.length >= 32,
        'at least 32 characters (e.g. openssl rand -base64 32)',
      ),
      sessionTtlSeconds: read.int('CONSOLE_SESSION_TTL_SECONDS', 8 * 3600, 60, 7 * 24 * 3600),
    },
    policiesFile: read.optionalString('TASK_POLICIES_FILE'),
    logLevel: read.oneOf('LOG_LEVEL', 'info', LOG_LEVELS),
    retired: Object.entries(RETIRED)
      .filter(([name]) => env[name] !== undefined)
      .map(([name, note]) => `${name} is no longer read: ${note}`),
    callbacks: {
      allowCidrs: read.list(
        'CALLBACK_ALLOW_CIDRS',
        (value) => parseAllowCidr(value) !== undefined,
        'a CIDR, optionally with :port',
      ),
      allowHosts: read.list(
        'CALLBACK_ALLOW_HOSTS',
        (value) => HOST_PATTERN.test(value),
        'a host name or *.domain, optionally with :port',
      ),
      httpsOnly: read.bool('CALLBACK_HTTPS_ONLY', false),
      maxResponseBytes: read.int('CALLBACK_MAX_RESPONSE_BYTES', 64 * 1024, 1024, 16 * 1024 * 1024),
    },
    webhooks: {
      defaultSecrets: read.list('WEBHOOK_SECRET', isWebhookSecret, 'a whsec_ secret of 24 to 64 bytes'),
      secretsFile: read.optionalString('WEBHOOK_SECRETS_FILE'),
    },
    encryption: {
      keys: Object.fromEntries(
        read
          .list(
            'PAYLOAD_ENCRYPTION_KEYS',
            (value) => parseKeyEntry(value) !== undefined,
            'id:base64 of 32 bytes',
          )
          .map((value) => parseKeyEntry(value)!),
      ),
      currentKeyId: read.optionalString('PAYLOAD_ENCRYPTION_CURRENT_KEY_ID'),
      keysFile: read.optionalString('PAYLOAD_ENCRYPTION_KEYS_FILE'),
    },
    codec: {
      authToken: read.optionalString('CODEC_AUTH_TOKEN'),
      corsOrigins: read.list('CODEC_CORS_ORIGINS', isOrigin, 'an origin such as http://localhost:8233'),
    },
    tracing: readTracing(read, problems),
  };
  if (config.http.headersTimeoutMs > config.http.requestTimeoutMs) {
    problems.push(
      'HTTP_HEADERS_TIMEOUT_MS must not exceed HTTP_REQUEST_TIMEOUT_MS (the headers are part of the request)',
    );
  }
  if (config.leases.minSeconds > config.leases.maxSeconds) {
    problems.push('LEASE_MIN_SECONDS must not exceed LEASE_MAX_SECONDS');
  }
  const { tokenKey } = config.leases;
  if (tokenKey !== undefined && Buffer.from(tokenKey, 'base64').length < 32) {
    problems.push('LEASE_TOKEN_KEY must be base64 of at least 32 bytes (openssl rand -base64 32)');
  }
  const { keys, currentKeyId, keysFile } = config.encryption;
  if (Object.keys(keys).length > 0 && !keysFile && (!currentKeyId || !Object.hasOwn(keys, currentKeyId))) {
    problems.push('PAYLOAD_ENCRYPTION_CURRENT_KEY_ID must name one of the keys in PAYLOAD_ENCRYPTION_KEYS');
  }
  if (problems.length > 0) {
    throw new ConfigError(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
  }
  return deepFreeze(config);
}

const HOST_PATTERN = /^(\*\.)?[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?(:\d{1,5})?$/;

/** `id:base64` of a 32-byte AES key; ids are short names that go into each payload's metadata. */
export function parseKeyEntry(value: string): [string, string] | undefined {
  const match = /^([A-Za-z0-9._-]{1,64}):([A-Za-z0-9+/]+={0,2})$/.exec(value);
  if (!match || Buffer.from(match[2]!, 'base64').length !== 32) return undefined;
  return [match[1]!, match[2]!];
}

function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === value.replace(/\/$/, '');
  } catch {
    return false;
  }
}

/**
 * The value of an environment variable a policy file names for a header secret, read when a callback
 * is sent (so a rotated value is picked up without a restart). Config stays the only module that
 * reads the environment.
 */
export function envSecret(name: string, env: Env = process.env): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

function deepFreeze<T>(value: T): Readonly<T> {
  if (value && typeof value === 'object') {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
