/**
 * The rules of the create contract that a JSON Schema cannot say: when the task runs, payload
 * limits, callback URL, per-type caps. Pure: `now` and the limits come in as arguments.
 */
import type { Config } from '../config/environment.js';
import type { TaskTypePolicy } from '../task-types/policies.js';
import type { PullDelivery } from '../shared/delivery.js';
import { LEASE_SECONDS_DEFAULT, PAYLOAD_VERSION_DEFAULT, PRIORITY } from '../shared/limits.js';
import { idempotencyKeyOf } from '../shared/owner.js';
import { DEFAULT_TASK_QUEUE, pullQueue } from '../shared/task-queues.js';
import type { TaskSpec } from '../shared/task.js';
import { hostMatches } from '../security/address-rules.js';
import { CallbackGuard, CallbackRefusedError } from '../security/callback-guard.js';
import { ApiError, ErrorCode, invalidArgument, PayloadSchemaError } from '../errors/catalog.js';
import type { CreateTaskBody } from '../contract/tasks.js';
import { fingerprintOf } from './fingerprint.js';

export type Limits = Config['limits'];

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/** Parses an RFC 3339 time that carries an offset; undefined when it is not one. */
export function parseRfc3339(value: string): number | undefined {
  const m = RFC3339.exec(value);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const millis = Number((m[7] ?? '0').padEnd(3, '0').slice(0, 3));
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return undefined;
  const local = Date.UTC(year, month - 1, day, hour, minute, second, millis);
  if (new Date(local).getUTCDate() !== day) return undefined; // 2026-02-30
  if (m[8]) return local;
  const offsetHours = Number(m[10]);
  const offsetMinutes = Number(m[11]);
  if (offsetHours > 23 || offsetMinutes > 59) return undefined;
  const sign = m[9] === '-' ? -1 : 1;
  return local - sign * (offsetHours * 60 + offsetMinutes) * 60_000;
}

export interface When {
  delaySeconds?: number;
  executeAt?: string;
}

/**
 * The due time of a create, reschedule or replay, as epoch ms. `fallbackNow` allows neither field
 * (replay runs now by default); otherwise exactly one is required.
 */
export function resolveWhen(when: When, now: number, limits: Limits, fallbackNow = false): number {
  const { delaySeconds, executeAt } = when;
  if (delaySeconds !== undefined && executeAt !== undefined) {
    throw new ApiError(ErrorCode.InvalidArgument, 'give either delaySeconds or executeAt, not both', [
      { field: 'delaySeconds', reason: 'cannot be combined with executeAt' },
      { field: 'executeAt', reason: 'cannot be combined with delaySeconds' },
    ]);
  }
  const ahead = limits.maxScheduleAheadSeconds;
  const mixUp = 'a seconds/milliseconds mix-up?';
  if (delaySeconds !== undefined) {
    if (delaySeconds > ahead) {
      throw invalidArgument('delaySeconds', `is more than ${ahead} s (${formatDays(ahead)}) ahead; ${mixUp}`);
    }
    return now + Math.round(delaySeconds * 1000);
  }
  if (executeAt !== undefined) {
    const at = parseRfc3339(executeAt);
    if (at === undefined) {
      throw invalidArgument(
        'executeAt',
        'must be an RFC 3339 time with an offset (Z or +08:00), e.g. 2026-12-02T18:30:00+08:00',
      );
    }
    if (at > now + ahead * 1000) {
      throw invalidArgument('executeAt', `is more than ${formatDays(ahead)} ahead; ${mixUp}`);
    }
    if (at < now - limits.maxPastSeconds * 1000) {
      throw invalidArgument('executeAt', `is more than ${limits.maxPastSeconds} s in the past; ${mixUp}`);
    }
    return at;
  }
  if (fallbackNow) return now;
  throw new ApiError(ErrorCode.InvalidArgument, 'give one of delaySeconds or executeAt', [
    { field: 'delaySeconds', reason: 'one of delaySeconds or executeAt is required' },
  ]);
}

function formatDays(seconds: number): string {
  return seconds % 86_400 === 0 ? `${seconds / 86_400} days` : `${seconds} s`;
}

/** Size and depth limits of a payload: 413 when too large, 400 when nested too deep. */
export function checkPayload(payload: Record<string, unknown>, limits: Limits, field = 'payload'): void {
  const size = Buffer.byteLength(JSON.stringify(payload), 'utf8');
  if (size > limits.maxPayloadBytes) {
    throw new ApiError(
      ErrorCode.PayloadTooLarge,
      `${field} is ${size} bytes; the limit is ${limits.maxPayloadBytes}`,
      [{ field, reason: `is ${size} bytes serialized; at most ${limits.maxPayloadBytes}` }],
    );
  }
  const depth = depthOf(payload);
  if (depth > limits.maxPayloadDepth) {
    throw invalidArgument(
      field,
      `is nested ${depth} levels deep; at most ${limits.maxPayloadDepth} (the payload object is level 1)`,
    );
  }
}

/** Nesting depth of objects and arrays; a scalar is 0, `{}` is 1. */
export function depthOf(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  let deepest = 0;
  for (const child of Object.values(value)) deepest = Math.max(deepest, depthOf(child));
  return deepest + 1;
}

/**
 * The payload against its type's schema for its version: every violation as one detail. A type
 * without schemas accepts any payload; one with schemas refuses a version it does not declare.
 */
export function checkPayloadSchema(
  payload: Record<string, unknown>,
  payloadVersion: number,
  policy: TaskTypePolicy,
): void {
  const schemas = policy.payloadSchemas;
  if (!schemas) return;
  const result = schemas.check(payloadVersion, payload);
  if (result.ok) return;
  if (result.unknownVersion) {
    const reason = `is not a declared version of task type ${policy.name} (declared: ${result.declared.join(', ')})`;
    throw new PayloadSchemaError(policy.name, payloadVersion, false, `payloadVersion ${reason}`, [
      { field: 'payloadVersion', reason },
    ]);
  }
  const [first] = result.problems;
  throw new PayloadSchemaError(
    policy.name,
    payloadVersion,
    true,
    `payload does not match the schema of ${policy.name} v${payloadVersion}${first ? `: ${first.field} ${first.reason}` : ''}`,
    result.problems,
  );
}

/**
 * An absolute http(s) URL that passes the SSRF guard as written (no DNS here: see
 * TaskCommands.create), on an allowed host when the policy restricts hosts.
 */
/**
 * Where a task calls back, parsed once at create: the URL as given (or the type's default), parsed,
 * and checked against the guard's rules and the type's allowed hosts. The key's host limit and the
 * DNS check read it; nothing parses the URL again before send time, when the connection pool checks
 * the addresses it connects to.
 */
export interface CallbackTarget {
  readonly url: string;
  readonly parsed: URL;
}

export function checkCallbackUrl(
  url: string | undefined,
  policy: TaskTypePolicy,
  guard: CallbackGuard = DEFAULT_GUARD,
): CallbackTarget {
  const value = url ?? policy.callbackUrl;
  if (value === undefined) {
    throw invalidArgument(
      'callbackUrl',
      'is required (this task type has no default callback URL), or give delivery for a pull task',
    );
  }
  let parsed: URL;
  try {
    parsed = guard.checkUrl(value);
  } catch (err) {
    if (err instanceof CallbackRefusedError) throw invalidArgument('callbackUrl', err.message);
    throw err;
  }
  const hosts = policy.allowedCallbackHosts;
  if (hosts && !hosts.some((host) => hostMatches(parsed.hostname, host))) {
    throw invalidArgument(
      'callbackUrl',
      `host ${parsed.hostname} is not allowed for this task type (allowed: ${hosts.join(', ')})`,
    );
  }
  return { url: value, parsed };
}

const DEFAULT_GUARD = new CallbackGuard();

/** A value within the policy's cap, or its default. */
export function capped(
  field: string,
  given: number | undefined,
  bounds: { default: number; max: number },
): number {
  if (given === undefined) return bounds.default;
  if (given > bounds.max) throw invalidArgument(field, `is over this task type's cap of ${bounds.max}`);
  return given;
}

/** Lease bounds of pull tasks (LEASE_MIN_SECONDS, LEASE_MAX_SECONDS). */
export type LeaseBounds = Pick<Config['leases'], 'minSeconds' | 'maxSeconds'>;
const DEFAULT_LEASE_BOUNDS: LeaseBounds = { minSeconds: 5, maxSeconds: 3600 };

/**
 * A create's pull delivery with its defaults, or undefined for a callback task. Exactly one of
 * `callbackUrl` or `delivery`; a type with a `ratePerSecond` is leased from its own queue only, the
 * queue the lease route rate-limits by the type's policy.
 */
export function checkDelivery(
  body: Pick<CreateTaskBody, 'callbackUrl' | 'delivery' | 'taskType'>,
  policy: TaskTypePolicy,
  bounds: LeaseBounds = DEFAULT_LEASE_BOUNDS,
): PullDelivery | undefined {
  const { delivery } = body;
  if (delivery === undefined) return undefined;
  if (body.callbackUrl !== undefined) {
    throw new ApiError(ErrorCode.InvalidArgument, 'give either callbackUrl or delivery, not both', [
      { field: 'delivery', reason: 'cannot be combined with callbackUrl' },
      { field: 'callbackUrl', reason: 'cannot be combined with delivery' },
    ]);
  }
  const leaseSeconds = delivery.leaseSeconds ?? LEASE_SECONDS_DEFAULT;
  if (leaseSeconds < bounds.minSeconds || leaseSeconds > bounds.maxSeconds) {
    throw invalidArgument(
      'delivery.leaseSeconds',
      `must be between ${bounds.minSeconds} and ${bounds.maxSeconds} (LEASE_MIN_SECONDS, LEASE_MAX_SECONDS)`,
    );
  }
  const queue = delivery.queue ?? body.taskType;
  if (policy.ratePerSecond !== undefined && queue !== body.taskType) {
    throw invalidArgument(
      'delivery.queue',
      `must be the task type's own (${body.taskType}): the type has a ratePerSecond, which bounds the leases of its own queue`,
    );
  }
  return { mode: 'pull', queue, leaseSeconds };
}

export interface CreateContext {
  /** Owner the task is created for (the API key's). */
  owner: string;
  now: number;
  limits: Limits;
  policy: TaskTypePolicy;
  callbackTaskQueue: string;
  /** Workflow shape v2: call back with a local activity or not (`routeNewTask` in src/shared/task-queues.ts); absent: a pre-v2 input. */
  localCallback?: boolean;
  newTaskId: () => string;
  /** The SSRF rules; the default one refuses every exception. */
  guard?: CallbackGuard;
  /** Bounds of a pull task's `leaseSeconds`. */
  leases?: LeaseBounds;
  /** The Temporal queue of one of the owner's pull queues (`pullQueue` in src/shared/task-queues.ts). */
  pullTaskQueue?: (queue: string) => string;
}

/** The workflow input of a create request, and the fingerprint that makes creates idempotent. */
export function buildTaskSpec(
  body: CreateTaskBody,
  ctx: CreateContext,
): { spec: TaskSpec; fingerprint: string; target: CallbackTarget | undefined } {
  const payload = body.payload as Record<string, unknown>;
  const payloadVersion = body.payloadVersion ?? PAYLOAD_VERSION_DEFAULT;
  checkPayload(payload, ctx.limits);
  checkPayloadSchema(payload, payloadVersion, ctx.policy);
  const executeAtMs = resolveWhen(body, ctx.now, ctx.limits);
  const maxRetries = capped('maxRetries', body.maxRetries, ctx.policy.maxRetries);
  const timeoutMs = capped('timeoutMs', body.timeoutMs, ctx.policy.timeoutMs);
  const delivery = checkDelivery(body, ctx.policy, ctx.leases);
  // Last: the only check that leaves this module (the SSRF rules).
  const target = delivery ? undefined : checkCallbackUrl(body.callbackUrl, ctx.policy, ctx.guard);
  const spec: TaskSpec = {
    taskId: body.taskId ?? ctx.newTaskId(),
    owner: ctx.owner,
    taskType: body.taskType,
    payload,
    payloadVersion,
    executeAt: new Date(executeAtMs).toISOString(),
    ...(target && { callbackUrl: target.url }),
    ...(delivery && { delivery }),
    maxRetries,
    timeoutMs,
    traceId: body.traceId ?? null,
    priority: body.priority ?? PRIORITY.default,
    createdAt: new Date(ctx.now).toISOString(),
    callbackTaskQueue: ctx.callbackTaskQueue,
    ...(delivery && {
      deliveryTaskQueue: (ctx.pullTaskQueue ?? ((queue) => pullQueue(DEFAULT_TASK_QUEUE, ctx.owner, queue)))(
        delivery.queue,
      ),
    }),
    retryPolicy: ctx.policy.retry,
    ...(ctx.localCallback !== undefined ? { localCallback: ctx.localCallback } : {}),
  };
  spec.idempotencyKey = idempotencyKeyOf(spec.owner, spec.taskId);
  // A retried create with delaySeconds computes a later executeAt: compare what was asked for.
  const when =
    body.delaySeconds !== undefined ? { delaySeconds: body.delaySeconds } : { executeAt: spec.executeAt };
  const fingerprint = fingerprintOf(spec, when);
  return { spec, fingerprint, target };
}
