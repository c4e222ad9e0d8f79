package dev.delayedtasks.client;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Objects;

/** A new time for a {@code SCHEDULED} task: exactly one of a delay or an absolute time. */
public final class RescheduleRequest {
  private final When schedule;

  private RescheduleRequest(When schedule) {
    this.schedule = schedule;
  }

  /** Run after this delay from now (sent as {@code delaySeconds}). */
  public static RescheduleRequest delay(Duration delay) {
    return new RescheduleRequest(new When(Objects.requireNonNull(delay, "delay"), null));
  }

  /** Run at this instant. */
  public static RescheduleRequest executeAt(Instant executeAt) {
    return new RescheduleRequest(new When(null, Objects.requireNonNull(executeAt, "executeAt")));
  }

  /** Run at this time (sent in UTC). */
  public static RescheduleRequest executeAt(OffsetDateTime executeAt) {
    return executeAt(Objects.requireNonNull(executeAt, "executeAt").toInstant());
  }

  ObjectNode toBody() {
    schedule.check(true);
    ObjectNode body = Payloads.newObject();
    schedule.writeTo(body);
    return body;
  }
}
