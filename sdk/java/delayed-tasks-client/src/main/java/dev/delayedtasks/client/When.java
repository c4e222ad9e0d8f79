package dev.delayedtasks.client;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.delayedtasks.client.internal.Json;
import dev.delayedtasks.client.internal.Reasons;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Objects;

/**
 * When a task runs: after a delay from now, or at a time. A create, a replay and a reschedule take
 * one, so a request can hold a delay or a time but never both. Sent as {@code delaySeconds} (with
 * millisecond precision) or {@code executeAt} (in UTC); a time without an offset cannot be passed.
 *
 * <pre>{@code
 * When.after(Duration.ofMinutes(30))
 * When.at(Instant.parse("2026-12-03T10:00:00Z"))
 * When.at(OffsetDateTime.parse("2026-12-03T18:00:00+08:00"))
 * }</pre>
 */
public final class When {
  private final Duration delay;
  private final Instant executeAt;

  private When(Duration delay, Instant executeAt) {
    this.delay = delay;
    this.executeAt = executeAt;
  }

  /** Run after this delay from now; a negative one is refused before sending. */
  public static When after(Duration delay) {
    return new When(Objects.requireNonNull(delay, "delay"), null);
  }

  /** Run at this instant. */
  public static When at(Instant executeAt) {
    return new When(null, Objects.requireNonNull(executeAt, "executeAt"));
  }

  /** Run at this time (sent in UTC). */
  public static When at(OffsetDateTime executeAt) {
    return at(Objects.requireNonNull(executeAt, "executeAt").toInstant());
  }

  /** The delay, or null for a time. */
  public Duration delay() {
    return delay;
  }

  /** The time, or null for a delay. */
  public Instant executeAt() {
    return executeAt;
  }

  /**
   * Refused before sending: none where one is required (a create), or a negative delay.
   *
   * @param when the request's time, or null when none was given
   */
  static void check(When when, boolean required) {
    if (when == null && required) {
      throw DelayedTaskException.invalidArgument("delaySeconds", Reasons.EXACTLY_ONE_SCHEDULE);
    }
    if (when != null && when.delay != null && when.delay.isNegative()) {
      throw DelayedTaskException.invalidArgument("delaySeconds", Reasons.NEGATIVE);
    }
  }

  void writeTo(ObjectNode body) {
    if (delay != null) {
      body.put("delaySeconds", seconds(delay));
    } else {
      body.put("executeAt", Json.formatTime(executeAt));
    }
  }

  /** Seconds with millisecond precision, written as an integer when whole: 1800, 1.5, 0.25. */
  static BigDecimal seconds(Duration delay) {
    BigDecimal seconds = BigDecimal.valueOf(delay.toMillis(), 3).stripTrailingZeros();
    return seconds.scale() < 0 ? seconds.setScale(0) : seconds;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof When that
        && Objects.equals(delay, that.delay)
        && Objects.equals(executeAt, that.executeAt);
  }

  @Override
  public int hashCode() {
    return Objects.hash(delay, executeAt);
  }

  @Override
  public String toString() {
    return delay != null ? "When.after(" + delay + ")" : "When.at(" + executeAt + ")";
  }
}
