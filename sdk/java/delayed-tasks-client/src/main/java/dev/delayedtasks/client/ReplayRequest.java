package dev.delayedtasks.client;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Objects;

/**
 * Overrides for re-running a {@code FAILED} or {@code CANCELLED} task. Everything is optional;
 * without a {@link When} the new run starts now.
 */
public final class ReplayRequest {
  private static final ReplayRequest EMPTY = builder().build();

  private final Object payload;
  private final Integer payloadVersion;
  private final Integer maxRetries;
  private final When when;

  private ReplayRequest(Builder b) {
    this.payload = b.payload;
    this.payloadVersion = b.payloadVersion;
    this.maxRetries = b.maxRetries;
    this.when = b.when;
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
    When.check(when, false);
    Payloads.putIfSet(body, "payloadVersion", payloadVersion);
    Payloads.putIfSet(body, "maxRetries", maxRetries);
    if (when != null) {
      when.writeTo(body);
    }
    return body;
  }

  /** Builds a {@link ReplayRequest}. */
  public static final class Builder {
    private Object payload;
    private Integer payloadVersion;
    private Integer maxRetries;
    private When when;

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

    /** When the new run starts (default: now). */
    public Builder when(When when) {
      this.when = Objects.requireNonNull(when, "when");
      return this;
    }

    public ReplayRequest build() {
      return new ReplayRequest(this);
    }
  }
}
