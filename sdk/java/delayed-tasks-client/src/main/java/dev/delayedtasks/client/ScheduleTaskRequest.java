package dev.delayedtasks.client;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Objects;

/**
 * What each occurrence of a schedule runs: the fields of a {@link CreateTaskRequest} without its
 * task id and time. Fields not set are not sent.
 *
 * <pre>{@code
 * ScheduleTaskRequest.builder()
 *     .taskType("report.generate")
 *     .payload(Map.of("report", "daily-sales"))
 *     .callbackUrl("https://reports.internal/callbacks")
 *     .build();
 * }</pre>
 */
public final class ScheduleTaskRequest {
  private final TaskFields fields;

  private ScheduleTaskRequest(Builder b) {
    this.fields = b.fields.copy();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The wire object; the payload is checked as a task's is (field {@code task.payload}). */
  ObjectNode toBody() {
    return fields.toBody("task.payload", null, null);
  }

  /** Builds a {@link ScheduleTaskRequest}. */
  public static final class Builder {
    private final TaskFields fields = new TaskFields();

    private Builder() {}

    public Builder taskType(String taskType) {
      fields.taskType = Objects.requireNonNull(taskType, "taskType");
      return this;
    }

    /** A Map, a JsonNode object or any object Jackson turns into a JSON object. */
    public Builder payload(Object payload) {
      fields.payload = payload;
      return this;
    }

    public Builder callbackUrl(String callbackUrl) {
      fields.callbackUrl = callbackUrl;
      return this;
    }

    public Builder maxRetries(int maxRetries) {
      fields.maxRetries = maxRetries;
      return this;
    }

    public Builder timeoutMs(int timeoutMs) {
      fields.timeoutMs = timeoutMs;
      return this;
    }

    public Builder payloadVersion(int payloadVersion) {
      fields.payloadVersion = payloadVersion;
      return this;
    }

    public Builder traceId(String traceId) {
      fields.traceId = traceId;
      return this;
    }

    public Builder priority(int priority) {
      fields.priority = priority;
      return this;
    }

    public ScheduleTaskRequest build() {
      return new ScheduleTaskRequest(this);
    }
  }
}
