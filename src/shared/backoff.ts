import { CALLBACK_BACKOFF } from './constants.js';

/**
 * A task type's retry schedule, carried in the workflow input (`TaskSpec.retryPolicy`) so that a
 * task keeps the schedule it was created with. Retry `n` (1 for the first retry) waits 0 ms while
 * `n <= immediateRetries`, then `initialIntervalMs * multiplier ** (n - immediateRetries - 1)`,
 * at most `maxIntervalMs`.
 */
export interface RetryPolicy {
  /** Wait before the first retry after the immediate ones. */
  initialIntervalMs: number;
  /** Growth of the wait from one retry to the next (1: fixed interval). */
  multiplier: number;
  /** Longest wait between two attempts (a longer Retry-After still wins, up to the global cap). */
  maxIntervalMs: number;
  /** Retries made at once, before the backoff starts (a network blip). */
  immediateRetries: number;
  /**
   * Seconds after the first attempt beyond which no attempt starts: the task is dead-lettered
   * whatever its maxRetries says. Absent: no limit.
   */
  maxTotalSeconds?: number;
}

/** Today's schedule: what a task created without a retry policy (or before they existed) follows. */
export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = {
  initialIntervalMs: CALLBACK_BACKOFF.initialMs,
  multiplier: CALLBACK_BACKOFF.multiplier,
  maxIntervalMs: CALLBACK_BACKOFF.maxMs,
  immediateRetries: 0,
};

/**
 * Delay before retry number `retry` (1 for the first retry) under `policy` (default: 1 s doubling,
 * capped at 10 minutes). A server's Retry-After wins when it asks for longer, up to the larger of
 * the policy's cap and the global 10-minute cap.
 */
export function retryDelayMs(
  retry: number,
  retryAfterMs?: number,
  policy: Readonly<RetryPolicy> = DEFAULT_RETRY_POLICY,
): number {
  const { initialIntervalMs, multiplier, maxIntervalMs, immediateRetries } = policy;
  const exponential =
    retry <= immediateRetries
      ? 0
      : Math.min(initialIntervalMs * multiplier ** Math.max(0, retry - immediateRetries - 1), maxIntervalMs);
  if (retryAfterMs === undefined) return exponential;
  return Math.max(exponential, Math.min(retryAfterMs, Math.max(maxIntervalMs, CALLBACK_BACKOFF.maxMs)));
}

/**
 * Whether another attempt may start `delayMs` from `now` (epoch ms) when the first attempt
 * started at `firstAttemptAt`: false once the policy's maximum total time would be passed.
 */
export function withinTotalTime(
  policy: Readonly<RetryPolicy>,
  firstAttemptAt: number,
  now: number,
  delayMs: number,
): boolean {
  return (
    policy.maxTotalSeconds === undefined || now + delayMs - firstAttemptAt <= policy.maxTotalSeconds * 1000
  );
}
