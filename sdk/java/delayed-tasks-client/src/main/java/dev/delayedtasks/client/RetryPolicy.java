package dev.delayedtasks.client;

import java.time.Duration;
import java.util.Objects;

/**
 * Retries of {@code UNAVAILABLE} (503), {@code RESOURCE_EXHAUSTED} (429) and network failures:
 * full-jitter exponential backoff; a longer {@code Retry-After} is honoured up to {@code
 * maxRetryAfter}. Nothing else is ever retried.
 *
 * @param maxRetries retries after the first attempt (default 3)
 * @param initialBackoff the first backoff ceiling (default 250 ms), doubled per retry
 * @param maxBackoff the backoff ceiling (default 5 s)
 * @param maxRetryAfter the longest {@code Retry-After} honoured (default 30 s)
 */
public record RetryPolicy(
    int maxRetries, Duration initialBackoff, Duration maxBackoff, Duration maxRetryAfter) {

  public RetryPolicy {
    if (maxRetries < 0) {
      throw new IllegalArgumentException("maxRetries must be >= 0");
    }
    Objects.requireNonNull(initialBackoff, "initialBackoff");
    Objects.requireNonNull(maxBackoff, "maxBackoff");
    Objects.requireNonNull(maxRetryAfter, "maxRetryAfter");
  }

  /** 3 retries, 250 ms doubling, capped at 5 s; Retry-After up to 30 s. */
  public static RetryPolicy defaults() {
    return new RetryPolicy(
        3, Duration.ofMillis(250), Duration.ofSeconds(5), Duration.ofSeconds(30));
  }

  /** No retries at all. */
  public static RetryPolicy none() {
    return new RetryPolicy(0, Duration.ZERO, Duration.ZERO, Duration.ZERO);
  }

  /** The default number of retries without any waiting (for tests). */
  public static RetryPolicy noBackoff() {
    return new RetryPolicy(3, Duration.ZERO, Duration.ZERO, Duration.ZERO);
  }

  /** The same policy with another number of retries. */
  public RetryPolicy withMaxRetries(int retries) {
    return new RetryPolicy(retries, initialBackoff, maxBackoff, maxRetryAfter);
  }

  /** The ceiling of the random wait before retry number {@code retry} (1-based). */
  Duration backoffCeiling(int retry) {
    long initial = initialBackoff.toMillis();
    long ceiling = initial << Math.min(retry - 1, 30);
    return Duration.ofMillis(
        Math.min(ceiling < 0 ? Long.MAX_VALUE : ceiling, maxBackoff.toMillis()));
  }
}
