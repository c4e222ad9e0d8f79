package dev.delayedtasks.client.callback;

import java.time.Duration;

/**
 * Runs each business effect once across a fleet: the receiver (and the pull worker) claims the
 * signed {@code webhook-id} (the lease's {@code idempotencyKey}) before the handler, completes it
 * after, and releases it when the handler failed. The same contract in every SDK of this service
 * ({@code conformance/stores}):
 *
 * <ul>
 *   <li>{@link #claim}: exactly one of any number of concurrent claims of one key is {@link
 *       ClaimResult#CLAIMED}; the others see {@link ClaimResult#IN_PROGRESS} while that claim is
 *       alive, {@link ClaimResult#DONE} once the key was completed.
 *   <li>A claim neither completed nor released within its {@code claimTtl} expires, so the key of a
 *       crashed handler can be claimed again.
 * </ul>
 *
 * <p>{@link InMemoryIdempotencyStore} serves one process; {@code RedisIdempotencyStore} (artifact
 * {@code delayed-tasks-redis}) and {@code SqlIdempotencyStore} ({@code delayed-tasks-jdbc}, with
 * the inbox that marks the key in your own transaction) serve replicas.
 */
public interface IdempotencyStore {
  /** How long a claim lives unless completed or released: 5 minutes. */
  Duration DEFAULT_CLAIM_TTL = Duration.ofMinutes(5);

  /** How long a completed key is remembered: 7 days. */
  Duration DEFAULT_DONE_TTL = Duration.ofDays(7);

  /**
   * Claims the key for {@code claimTtl}.
   *
   * @return {@link ClaimResult#CLAIMED} with a token (run the effect, then {@link #complete} or
   *     {@link #release}), {@link ClaimResult#IN_PROGRESS} or {@link ClaimResult#DONE}
   */
  Claim claim(String key, Duration claimTtl);

  /** Marks the key done (remembered for the store's done TTL); call after the effect returned. */
  void complete(String key);

  /**
   * Drops this claim, and only this one (the {@link Claim#token()} of the claim), so a retry can
   * run; a claim that expired and was taken by another holder is left alone.
   */
  void release(String key, String token);
}
