package dev.delayedtasks.client;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Objects;

/**
 * A task to create. Exactly one of {@code delay} and {@code executeAt} must be set. Times are
 * {@link Instant} or {@link OffsetDateTime} only: a time without an offset cannot be passed.
 *
 * <pre>{@code
 * CreateTaskRequest.builder()
 *     .taskType("order.close")
 *     .payload(Map.of("orderId", "10023"))
 *     .delay(Duration.ofMinutes(30))
 *     .build();
 * }</pre>
 */
public final class CreateTaskRequest {
  private final TaskFields fields;
  private final When schedule;
  private final String taskId;

  private CreateTaskRequest(Builder b) {
    this.fields = b.fields.copy();
    this.schedule = new When(b.delay, b.executeAt);
    this.taskId = b.taskId;
  }

  public static Builder builder() {
    return new Builder();
  }

  public String taskType() {
    return fields.taskType;
  }

  /** The caller's task id, or null when the client is to generate one. */
  public String taskId() {
    return taskId;
  }

  /** The wire body with the given task id; only the fields that were set. Checks first. */
  ObjectNode toBody(String effectiveTaskId) {
    return fields.toBody("payload", schedule, effectiveTaskId);
  }

  /** Builds a {@link CreateTaskRequest}; every setter is optional except as the API requires. */
  public static final class Builder extends TaskFieldsBuilder<Builder> {
    private Duration delay;
    private Instant executeAt;
    private String taskId;

    private Builder() {}

    @Override
    Builder self() {
      return this;
    }

    /** Run after this delay (sent as {@code delaySeconds}, with millisecond precision). */
    public Builder delay(Duration delay) {
      this.delay = Objects.requireNonNull(delay, "delay");
      return this;
    }

    /** Run at this instant. */
    public Builder executeAt(Instant executeAt) {
      this.executeAt = Objects.requireNonNull(executeAt, "executeAt");
      return this;
    }

    /** Run at this time (sent in UTC). */
    public Builder executeAt(OffsetDateTime executeAt) {
      return executeAt(Objects.requireNonNull(executeAt, "executeAt").toInstant());
    }

    /** Client-chosen id; when absent the client generates a UUID, reused on every retry. */
    public Builder taskId(String taskId) {
      this.taskId = taskId;
      return this;
    }

    public CreateTaskRequest build() {
      return new CreateTaskRequest(this);
    }
  }
}
