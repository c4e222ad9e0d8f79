/**
 * Authentication, scopes, per-key rate limits and the audit log of the API, as Fastify hooks.
 *
 * A route that declares `config: { scope }` requires `Authorization: Bearer <key>` with that scope
 * (or `admin`); routes without one (health, metrics, docs) are open. Order per request: failed-
 * authentication limit of the client address, the key, the key's rate limit, the scope. Refusals
 * go through the app's one error handler; one audit line follows every state-changing call and
 * every refused one.
 */
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AuthFailure, KeyStore } from '../auth/key-store.js';
import { clientKey } from '../auth/client-address.js';
import { ANONYMOUS, hasScope, permissionDenied, type Principal, type Scope } from '../auth/principal.js';
import { ApiError, ErrorCode } from '../errors/catalog.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Scope the route requires (`admin` holds every scope); routes without one are open. */
    scope?: Scope;
    /**
     * How many requests a call counts as against its key's rate limit, read after validation (a
     * batch create: its items). 1 when absent.
     */
    rateLimitCost?: (request: FastifyRequest) => number;
    /**
     * Audit this route though it declares no scope (the codec, which authenticates on its own
     * terms): one audit line per call, served or refused.
     */
    audited?: boolean;
  }
  interface FastifyInstance {
    /** Failed authentications per client address, for every way in: API keys, the codec, the console. */
    authFailures: AuthFailureGate;
    /**
     * The API's key check for a route that authenticates on its own terms (the codec): false for a
     * missing or invalid key (counted as a failed authentication); 429 past the address's failures or
     * the key's rate limit, 403 without `scope`; sets `request.principal` and the audit fields.
     */
    authenticateKey(request: FastifyRequest, reply: FastifyReply, scope: Scope): Promise<boolean>;
    /**
     * Counts one request of `request.principal`'s key against its per-minute limit: the one limiter of
     * the API and the console (its pages, forms and login). 429 past the limit.
     */
    limitKey(request: FastifyRequest, reply: FastifyReply): Promise<void>;
    /**
     * Counts a call as `cost` requests of its key (it counted one on arrival): all of them when they
     * fit, else none more and 429. For a call whose work is known only in its handler (a backfill's
     * runs); a route whose cost its body says declares `rateLimitCost` instead.
     */
    chargeKey(request: FastifyRequest, reply: FastifyReply, cost: number): Promise<void>;
  }
  interface FastifyRequest {
    /** Who is calling; set before validation on every route that declares a scope. */
    principal: Principal;
    /** What the audit line of this request says about the task, filled in by routes and the error handler. */
    audit: AuditRecord;
  }
}

export interface AuditRecord {
  outcome?: string;
  owner?: string;
  taskId?: string;
  taskType?: string;
  callbackUrl?: string;
  authFailure?: AuthFailure;
  keyId?: string;
  /** The credential a call was let in with, on a route that takes more than API keys (the codec). */
  credential?: 'CODEC_AUTH_TOKEN' | 'API key' | 'loopback';
  /** How many items the call carried (the codec's payloads). */
  items?: number;
  /** How many occurrences the call started (a schedule's backfill): what it counted as. */
  runs?: number;
}

export interface AuthOptions {
  /** The API keys; undefined: authentication is off and every request is owner `default`, every scope. */
  keys: KeyStore | undefined;
  /** Requests per minute of a key without its own limit. */
  requestsPerMinute: number;
  /** Failed authentications per minute from one client (an IPv4 address, an IPv6 /64). */
  failuresPerMinute: number;
  /** Failed authentications per minute from every client together: the ceiling for a spread guess. */
  failuresPerMinuteGlobal: number;
}

/**
 * Failed authentications, whatever credential was tried (API key, codec token, console login):
 * `AUTH_FAILURES_PER_MINUTE` per client and `AUTH_FAILURES_PER_MINUTE_GLOBAL` in all. Only failures
 * are limited: a request with a valid credential is never refused for them, so neither a load
 * balancer's address (without TRUST_PROXY) nor an attacker guessing from everywhere can lock real
 * clients out.
 */
export interface AuthFailureGate {
  /** Counts one failed authentication; 429 once its client, or everyone together, is over the limit. */
  count(request: FastifyRequest, reply: FastifyReply): Promise<void>;
}

export const SECURITY_SCHEME = 'apiKey';
const MINUTE_MS = 60_000;
const UNAUTHENTICATED_MESSAGE =
  'a valid API key is required: send Authorization: Bearer <key> (keys look like dts_<keyId>_<secret>)';

/** The one 401 answer, whatever was wrong with the credential. */
export function unauthenticated(): ApiError {
  return new ApiError(ErrorCode.Unauthenticated, UNAUTHENTICATED_MESSAGE);
}

function tooMany(reply: FastifyReply, retryAfterSeconds: number, message: string): ApiError {
  reply.header('retry-after', String(Math.max(1, retryAfterSeconds)));
  return new ApiError(ErrorCode.ResourceExhausted, message);
}

export async function registerAuth(app: FastifyInstance, options: AuthOptions): Promise<void> {
  const { keys } = options;
  // Only the limiter functions are used (`createRateLimit`), in the order this file decides.
  await app.register(rateLimit, { global: false });
  const perKey = app.createRateLimit({
    keyGenerator: (request) => `key:${request.principal.keyId ?? ''}`,
    max: (request) => request.principal.requestsPerMinute ?? options.requestsPerMinute,
    timeWindow: MINUTE_MS,
  });
  const failures = app.createRateLimit({
    // request.ip: the client as TRUST_PROXY lets Fastify read it from X-Forwarded-For.
    keyGenerator: (request) => `client:${clientKey(request.ip)}`,
    max: options.failuresPerMinute,
    timeWindow: MINUTE_MS,
  });
  const allFailures = app.createRateLimit({
    keyGenerator: () => 'all-clients',
    max: options.failuresPerMinuteGlobal,
    timeWindow: MINUTE_MS,
  });

  const gate: AuthFailureGate = {
    async count(request, reply) {
      const [client, everyone] = [await failures(request), await allFailures(request)];
      if (!client.isAllowed && client.isExceeded) {
        throw tooMany(
          reply,
          client.ttlInSeconds,
          'too many failed authentications from this client; retry later',
        );
      }
      if (!everyone.isAllowed && everyone.isExceeded) {
        throw tooMany(reply, everyone.ttlInSeconds, 'too many failed authentications; retry later');
      }
    },
  };
  app.decorate('authFailures', gate);

  app.decorateRequest('principal', null as unknown as Principal);
  app.decorateRequest('audit', null as unknown as AuditRecord);

  // The route's scope, declared once in its options, also documents it in the OpenAPI document.
  app.addHook('onRoute', (route) => {
    if (route.schema?.hide) return;
    const scope = route.config?.scope;
    const schema = (route.schema ??= {}) as Record<string, unknown>;
    // HEAD routes share their GET route's schema: document once.
    if (schema.security !== undefined) return;
    if (!scope) {
      schema.security = [];
      return;
    }
    schema.security = [{ [SECURITY_SCHEME]: [] }];
    schema['x-scopes'] = [scope];
    const line = `**Scope:** \`${scope}\`${scope === 'admin' ? '' : ' (or `admin`)'}.`;
    schema.description = schema.description ? `${String(schema.description)}\n\n${line}` : line;
  });

  const limitKey = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const limit = await perKey(request);
    if (limit.isAllowed) return;
    reply.header('x-ratelimit-limit', String(limit.max));
    reply.header('x-ratelimit-remaining', String(limit.remaining));
    reply.header('x-ratelimit-reset', String(limit.ttlInSeconds));
    if (limit.isExceeded) {
      throw tooMany(
        reply,
        limit.ttlInSeconds,
        `over this API key's limit of ${limit.max} requests per minute`,
      );
    }
  };
  app.decorate('limitKey', limitKey);

  const authenticateKey = async (
    request: FastifyRequest,
    reply: FastifyReply,
    scope: Scope,
  ): Promise<boolean> => {
    if (!keys) return false;
    const result = keys.authenticate(request.headers.authorization);
    if (!result.ok) {
      request.audit.authFailure = result.reason;
      request.audit.keyId = result.keyId;
      await gate.count(request, reply);
      return false;
    }
    const principal = result.principal;
    request.principal = principal;
    request.log = request.log.child({ keyId: principal.keyId, owner: principal.owner });
    reply.log = request.log;
    await limitKey(request, reply);
    if (!hasScope(principal, scope)) throw permissionDenied('authorization', `lacks scope ${scope}`);
    return true;
  };
  app.decorate('authenticateKey', authenticateKey);

  app.addHook('onRequest', async (request, reply) => {
    request.audit = {};
    const scope = request.routeOptions.config.scope;
    if (!scope) return;
    if (!keys) {
      request.principal = ANONYMOUS;
      return;
    }
    if (!(await authenticateKey(request, reply, scope))) throw unauthenticated();
  });

  // A call that does the work of several (a batch) counts as that many once its body is known. The
  // rest is counted only when all of it fits: a refused batch uses up one request, as any request.
  const chargeKey = async (request: FastifyRequest, reply: FastifyReply, cost: number): Promise<void> => {
    if (cost <= 1 || !keys || !request.principal?.keyId) return;
    const seen = await perKey(request, { increment: false });
    if (seen.isAllowed) return;
    if (seen.remaining < cost - 1) {
      reply.header('x-ratelimit-limit', String(seen.max));
      reply.header('x-ratelimit-remaining', String(seen.remaining));
      reply.header('x-ratelimit-reset', String(seen.ttlInSeconds));
      throw tooMany(
        reply,
        seen.ttlInSeconds,
        `this call counts as ${cost} requests and ${seen.remaining + 1} remain of this API key's limit of ${seen.max} per minute`,
      );
    }
    for (let counted = 1; counted < cost; counted++) await perKey(request);
  };
  app.decorate('chargeKey', chargeKey);
  app.addHook('preHandler', async (request, reply) => {
    const cost = request.routeOptions.config.rateLimitCost?.(request);
    if (cost !== undefined) await chargeKey(request, reply, cost);
  });

  app.addHook('onResponse', async (request, reply) => {
    const { scope, audited } = request.routeOptions.config;
    if (!(scope || audited) || !request.audit) return;
    const refused = reply.statusCode === 401 || reply.statusCode === 403 || reply.statusCode === 429;
    if ((request.method === 'GET' || request.method === 'HEAD') && !refused) return;
    request.log.info({ audit: auditLine(request, reply.statusCode) }, 'audit');
  });
}

/** The audit line of a request: who did what to which task, and how it ended. Never a secret. */
function auditLine(
  request: FastifyRequest,
  status: number,
  audit: AuditRecord = request.audit,
  requestBody: unknown = request.body,
): Record<string, unknown> {
  const params = (request.params ?? {}) as { taskId?: unknown; jobId?: unknown; scheduleId?: unknown };
  const body = (requestBody ?? {}) as {
    taskId?: unknown;
    taskType?: unknown;
    callbackUrl?: unknown;
    scheduleId?: unknown;
  };
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  const callbackUrl = audit.callbackUrl ?? text(body.callbackUrl);
  return {
    action: request.routeOptions.schema?.operationId ?? `${request.method} ${request.routeOptions.url}`,
    keyId: request.principal?.keyId ?? audit.keyId ?? null,
    owner: audit.owner ?? request.principal?.owner ?? null,
    taskId: audit.taskId ?? text(params.taskId) ?? text(body.taskId) ?? null,
    jobId: text(params.jobId),
    scheduleId: text(params.scheduleId) ?? text(body.scheduleId),
    taskType: audit.taskType ?? text(body.taskType) ?? null,
    callbackHost: callbackUrl && URL.canParse(callbackUrl) ? new URL(callbackUrl).host : null,
    outcome: status < 400 ? 'ok' : (audit.outcome ?? `HTTP ${status}`),
    authFailure: audit.authFailure,
    ...(audit.credential && { credential: audit.credential }),
    ...(audit.items !== undefined && { items: audit.items }),
    ...(audit.runs !== undefined && { runs: audit.runs }),
    status,
    requestId: request.id,
    ip: request.ip,
  };
}

/**
 * The audit line of one item of a batch: what a single create of `item` would log, with its index
 * (the batch request has its own line besides).
 */
export function auditItem(
  request: FastifyRequest,
  index: number,
  status: number,
  item: unknown,
  audit: AuditRecord,
): void {
  request.log.info({ audit: { ...auditLine(request, status, audit, item), index } }, 'audit');
}

/** Records the task a call acted on for its audit line. */
export function auditTask(request: FastifyRequest, task: AuditedTask): void {
  Object.assign(request.audit, auditRecordOf(task));
}

type AuditedTask = { taskId: string; owner: string; taskType: string; callbackUrl?: string | null };

/** What an audit line says about a task a call acted on. */
export function auditRecordOf(task: AuditedTask): AuditRecord {
  return {
    taskId: task.taskId,
    owner: task.owner,
    taskType: task.taskType,
    ...(task.callbackUrl ? { callbackUrl: task.callbackUrl } : {}),
  };
}

/**
 * A task as the caller may see it: whole with `tasks:read`; without it (a write-only key that
 * cancels, reschedules or replays), no payload, callback URL or attempt history, which are for
 * readers only.
 */
export function visibleTo<T extends { payload?: unknown; callbackUrl?: string; attemptHistory?: unknown }>(
  principal: Principal,
  task: T,
): T {
  if (hasScope(principal, 'tasks:read')) return task;
  const { payload: _payload, callbackUrl: _url, attemptHistory: _history, ...minimal } = task;
  return minimal as T;
}
