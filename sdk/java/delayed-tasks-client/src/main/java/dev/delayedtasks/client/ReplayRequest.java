package dev.delayedtasks.client;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Objects;

/**
 * Overrides for re-running a {@code FAILED} or {@code CANCELLED} task. Everything is optional; with
 * neither {@code delay} nor {@code executeAt} the new run starts now.
 */
public final class ReplayRequest {
  private static final ReplayRequest EMPTY = builder().build();

  private final Object payload;
  private final Integer payloadVersion;
  private final Integer maxRetries;
  private final When schedule;

  private ReplayRequest(Builder b) {
    this.payload = b.payload;
    this.payloadVersion = b.payloadVersion;
    this.maxRetries = b.maxRetries;
    this.schedule = new When(b.delay, b.executeAt);
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Replay with the task's own payload and settings, now. */
  public static ReplayRequest empty() {
    return EMPTY;
  }

  ObjectNode toBody() {
    ObjectNode body = Payloads.newObject();
    if (payload != null) {
      body.set("payload", Payloads.toObject("payload", payload));
    }
    schedule.check(false);
    Payloads.putIfSet(body, "payloadVersion", payloadVersion);
    Payloads.putIfSet(body, "maxRetries", maxRetries);
    schedule.writeTo(body);
    return body;
  }

  /** Builds a {@link ReplayRequest}. */
  public static final class Builder {
    private Object payload;
    private Integer payloadVersion;
    private Integer maxRetries;
    private Duration delay;
    private Instant executeAt;

    private Builder() {}

    /** A new payload (a JSON object) for the new run. */
    public Builder payload(Object payload) {
      this.payload = Objects.requireNonNull(payload, "payload");
      return this;
    }

    public Builder payloadVersion(int payloadVersion) {
      this.payloadVersion = payloadVersion;
      return this;
    }

    public Builder maxRetries(int maxRetries) {
      this.maxRetries = maxRetries;
      return this;
    }

    /** Start the new run after this delay (sent as {@code delaySeconds}). */
    public Builder delay(Duration delay) {
      this.delay = Objects.requireNonNull(delay, "delay");
      return this;
    }

    public Builder executeAt(Instant executeAt) {
      this.executeAt = Objects.requireNonNull(executeAt, "executeAt");
      return this;
    }

    public Builder executeAt(OffsetDateTime executeAt) {
      return executeAt(Objects.requireNonNull(executeAt, "executeAt").toInstant());
    }

    public ReplayRequest build() {
      return new ReplayRequest(this);
    }
  }
}
