/**
 * Checks made before anything is sent, the same in every SDK: numbers the API refuses (non-finite,
 * beyond ±(2^53-1)) anywhere in a payload, times without an offset, the delay-or-time rule.
 */
import { invalidArgument } from './errors.js';

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const OFFSET = /(?:Z|[+-]\d{2}:\d{2})$/i;

export type Payload = Record<string, unknown>;

/** Throws INVALID_ARGUMENT unless `payload` is a plain JSON object of numbers JSON can carry exactly. */
export function checkPayload(payload: unknown, field = 'payload'): asserts payload is Payload {
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) {
    throw invalidArgument(field, 'must be a JSON object');
  }
  walk(payload, field);
}

function walk(value: unknown, path: string): void {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw invalidArgument(path, 'is not a finite number');
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
  return invalidArgument(path, 'is an integer beyond ±(2^53-1); send large ids and amounts as strings');
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
    throw invalidArgument('delaySeconds', 'and executeAt cannot both be set');
  }
  if (delaySeconds === undefined && executeAt === undefined) {
    if (required) throw invalidArgument('delaySeconds', 'or executeAt is required');
    return {};
  }
  if (delaySeconds !== undefined) {
    if (typeof delaySeconds !== 'number' || !Number.isFinite(delaySeconds) || delaySeconds < 0) {
      throw invalidArgument('delaySeconds', 'must be a finite number of seconds >= 0');
    }
    return { delaySeconds: Math.round(delaySeconds * 1000) / 1000 };
  }
  if (executeAt instanceof Date) {
    if (Number.isNaN(executeAt.getTime())) throw invalidArgument('executeAt', 'is an invalid Date');
    return { executeAt: executeAt.toISOString() };
  }
  if (typeof executeAt !== 'string' || !OFFSET.test(executeAt) || Number.isNaN(Date.parse(executeAt))) {
    throw invalidArgument('executeAt', 'must be a Date or an RFC 3339 time with an offset (Z or +08:00)');
  }
  return { executeAt };
}
