package dev.delayedtasks.client;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.delayedtasks.client.internal.Json;
import dev.delayedtasks.client.internal.Reasons;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;

/**
 * When a task runs: a delay or an absolute time, written as {@code delaySeconds} or {@code
 * executeAt}. Package-private: requests expose it through their builders.
 */
record When(Duration delay, Instant executeAt) {
  static final When NONE = new When(null, null);

  boolean isEmpty() {
    return delay == null && executeAt == null;
  }

  /**
   * Refused before sending: both set, neither set when one is required (create, reschedule), or a
   * negative delay.
   */
  void check(boolean required) {
    if (delay != null && executeAt != null) {
      throw DelayedTaskException.invalidArgument(
          "delaySeconds", required ? Reasons.EXACTLY_ONE_SCHEDULE : Reasons.AT_MOST_ONE_SCHEDULE);
    }
    if (required && isEmpty()) {
      throw DelayedTaskException.invalidArgument("delaySeconds", Reasons.EXACTLY_ONE_SCHEDULE);
    }
    if (delay != null && delay.isNegative()) {
      throw DelayedTaskException.invalidArgument("delaySeconds", Reasons.NEGATIVE);
    }
  }

  void writeTo(ObjectNode body) {
    if (delay != null) {
      body.put("delaySeconds", seconds(delay));
    }
    if (executeAt != null) {
      body.put("executeAt", Json.formatTime(executeAt));
    }
  }

  /** Seconds with millisecond precision, written as an integer when whole: 1800, 1.5, 0.25. */
  static BigDecimal seconds(Duration delay) {
    BigDecimal seconds = BigDecimal.valueOf(delay.toMillis(), 3).stripTrailingZeros();
    return seconds.scale() < 0 ? seconds.setScale(0) : seconds;
  }
}
