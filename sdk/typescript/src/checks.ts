/**
 * Checks made before anything is sent, the same in every SDK: numbers the API refuses (non-finite,
 * beyond ±(2^53-1)) anywhere in a payload, times without an offset, the delay-or-time rule.
 */
import { invalidArgument } from './errors.js';

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const OFFSET = /(?:Z|[+-]\d{2}:\d{2})$/i;

export type Payload = Record<string, unknown>;

/**
 * The refusal texts, word for word the same in every SDK (conformance/client-vectors/common.ts `REASONS`; the
 * conformance runner compares them). A refusal's message is `<field> <reason>`.
 */
export const REASONS = {
  notFinite: 'is not a finite number',
  unsafeInteger: 'is an integer beyond ±(2^53-1); send large ids and amounts as strings',
  noOffset: 'must be an RFC 3339 time with an offset (Z or +08:00)',
  exactlyOne: 'give exactly one of delaySeconds or executeAt',
  atMostOne: 'give at most one of delaySeconds or executeAt',
  negative: 'must not be negative',
  notObject: 'must be a JSON object',
  /** TypeScript only: a `Date` whose time is NaN (`new Date('nope')`), which no other language has. */
  invalidDate: 'is an invalid Date',
  bothTargets: 'give either callbackUrl or delivery, not both',
} as const;

/**
 * Throws INVALID_ARGUMENT when both `callbackUrl` and `delivery` are set (neither is fine: the task
 * type's policy may name the callback).
 */
export function checkTarget(target: { callbackUrl?: unknown; delivery?: unknown }, field = 'delivery'): void {
  if (target.callbackUrl !== undefined && target.delivery !== undefined) {
    throw invalidArgument(field, REASONS.bothTargets);
  }
}

/** Throws INVALID_ARGUMENT unless `payload` is a plain JSON object of numbers JSON can carry exactly. */
export function checkPayload(payload: unknown, field = 'payload'): asserts payload is Payload {
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) {
    throw invalidArgument(field, REASONS.notObject);
  }
  walk(payload, field);
}

function walk(value: unknown, path: string): void {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw invalidArgument(path, REASONS.notFinite);
    // Every double beyond 2^53 is an integer, which the API refuses: so is any such number here.
    if (Math.abs(value) > Number.MAX_SAFE_INTEGER) throw unsafe(path);
  } else if (typeof value === 'bigint') {
    if (value > MAX_SAFE || value < -MAX_SAFE) throw unsafe(path);
  } else if (Array.isArray(value)) {
    value.forEach((item, index) => walk(item, `${path}.${index}`));
  } else if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
    for (const [key, child] of Object.entries(value)) walk(child, `${path}.${key}`);
  }
}

function unsafe(path: string) {
  return invalidArgument(path, REASONS.unsafeInteger);
}

/** When a task runs: a delay in seconds, or a time (`Date`, or an RFC 3339 string with an offset). */
export interface When {
  delaySeconds?: number;
  executeAt?: Date | string;
}

/**
 * The wire form of `delaySeconds`/`executeAt`. `required`: exactly one must be set (create,
 * reschedule); otherwise at most one (replay).
 */
export function wireWhen(when: When, required: boolean): { delaySeconds?: number; executeAt?: string } {
  const { delaySeconds, executeAt } = when;
  if (delaySeconds !== undefined && executeAt !== undefined) {
    throw invalidArgument('delaySeconds', required ? REASONS.exactlyOne : REASONS.atMostOne);
  }
  if (delaySeconds === undefined && executeAt === undefined) {
    if (required) throw invalidArgument('delaySeconds', REASONS.exactlyOne);
    return {};
  }
  if (delaySeconds !== undefined) {
    if (typeof delaySeconds !== 'number' || !Number.isFinite(delaySeconds)) {
      throw invalidArgument('delaySeconds', REASONS.notFinite);
    }
    if (delaySeconds < 0) throw invalidArgument('delaySeconds', REASONS.negative);
    return { delaySeconds: Math.round(delaySeconds * 1000) / 1000 };
  }
  return { executeAt: wireTime('executeAt', executeAt) };
}

/**
 * A time as the caller gave it: a `Date` as UTC with milliseconds, a string with an offset as given
 * (`utc`: converted to UTC with milliseconds too, as the list filters send them).
 */
export function wireTime(field: string, time: Date | string | undefined, utc = false): string {
  if (time instanceof Date) {
    if (Number.isNaN(time.getTime())) throw invalidArgument(field, REASONS.invalidDate);
    return time.toISOString();
  }
  if (typeof time !== 'string' || !OFFSET.test(time) || Number.isNaN(Date.parse(time))) {
    throw invalidArgument(field, REASONS.noOffset);
  }
  return utc ? new Date(time).toISOString() : time;
}
