import { CALLBACK_BACKOFF } from './constants.js';

/**
 * Delay before retry number `retry` (1 for the first retry): 1 s doubling, capped at 10 minutes.
 * A server's Retry-After wins when it asks for longer, within the same cap.
 */
export function retryDelayMs(retry: number, retryAfterMs?: number): number {
  const { initialMs, multiplier, maxMs } = CALLBACK_BACKOFF;
  const exponential = initialMs * multiplier ** Math.max(0, retry - 1);
  const wanted = retryAfterMs !== undefined ? Math.max(exponential, retryAfterMs) : exponential;
  return Math.min(wanted, maxMs);
}
