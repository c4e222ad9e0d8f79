package dev.delayedtasks.client.callback;

import java.time.Duration;
import java.util.Optional;

/** Thrown by a handler: not now, try again (answered 503, with {@code Retry-After} if given). */
public class RetryableException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final transient Duration retryAfter;

  public RetryableException(String message) {
    this(message, null, null);
  }

  public RetryableException(String message, Duration retryAfter) {
    this(message, retryAfter, null);
  }

  public RetryableException(String message, Duration retryAfter, Throwable cause) {
    super(message, cause);
    this.retryAfter = retryAfter;
  }

  /** How long the service should wait before the next attempt, if the handler knows. */
  public Optional<Duration> retryAfter() {
    return Optional.ofNullable(retryAfter);
  }
}
