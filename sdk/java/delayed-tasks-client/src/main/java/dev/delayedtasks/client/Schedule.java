package dev.delayedtasks.client;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.delayedtasks.client.internal.Json;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;

/**
 * When a task runs: a delay or an absolute time, written as {@code delaySeconds} or {@code
 * executeAt}. Package-private: requests expose it through their builders.
 */
record Schedule(Duration delay, Instant executeAt) {
  static final Schedule NONE = new Schedule(null, null);

  boolean isEmpty() {
    return delay == null && executeAt == null;
  }

  /** Both or neither set (when required), or a negative delay: refused before sending. */
  void check(boolean required) {
    if (delay != null && executeAt != null) {
      throw DelayedTaskException.invalidArgument(
          "delaySeconds", "give either delaySeconds or executeAt, not both");
    }
    if (required && isEmpty()) {
      throw DelayedTaskException.invalidArgument(
          "delaySeconds", "give one of delaySeconds or executeAt");
    }
    if (delay != null && delay.isNegative()) {
      throw DelayedTaskException.invalidArgument("delaySeconds", "must not be negative");
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
