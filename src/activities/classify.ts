/**
 * Turns the outcome of one callback attempt into success, retryable or permanent. Pure.
 */
import { CallbackFailureType } from '../shared/task.js';

/** What one HTTP attempt came to, before the workflow records it as an `AttemptOutcome` (shared/task.ts). */
export type CallbackResult =
  | { kind: 'success'; statusCode: number }
  | {
      kind: 'failure';
      type: CallbackFailureType;
      statusCode?: number;
      retryAfterMs?: number;
      /** The receiver did not answer within the task's timeout (counted apart in the metrics). */
      timedOut?: true;
      message: string;
      /** The refused address a callback host resolved to: for the log, never the task's lastError. */
      address?: string;
    };

const RETRYABLE_4XX = new Set([408, 425, 429]);
const RETRY_AFTER_STATUSES = new Set([429, 503]);

/** Classifies an HTTP response: 2xx succeeds; 408, 425, 429 and 5xx are retried; the rest is permanent. */
export function classifyResponse(
  statusCode: number,
  retryAfter: string | undefined,
  now: number,
): CallbackResult {
  if (statusCode >= 200 && statusCode < 300) return { kind: 'success', statusCode };
  const retryable = statusCode >= 500 || RETRYABLE_4XX.has(statusCode);
  const outcome: CallbackResult = {
    kind: 'failure',
    type: retryable ? CallbackFailureType.Retryable : CallbackFailureType.Permanent,
    statusCode,
    message: `callback answered HTTP ${statusCode}`,
  };
  if (retryable && RETRY_AFTER_STATUSES.has(statusCode)) {
    const retryAfterMs = parseRetryAfter(retryAfter, now);
    if (retryAfterMs !== undefined) outcome.retryAfterMs = retryAfterMs;
  }
  return outcome;
}

/** Retry-After as delay-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  // An HTTP date names its weekday and month; anything else (say "-1") is not one.
  if (!/[A-Za-z]{3}/.test(trimmed)) return undefined;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}
