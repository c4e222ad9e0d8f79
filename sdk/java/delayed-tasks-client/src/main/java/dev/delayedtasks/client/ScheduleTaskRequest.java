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
  private final String taskType;
  private final Object payload;
  private final String callbackUrl;
  private final Integer maxRetries;
  private final Integer timeoutMs;
  private final Integer payloadVersion;
  private final String traceId;
  private final Integer priority;

  private ScheduleTaskRequest(Builder b) {
    this.taskType = b.taskType;
    this.payload = b.payload;
    this.callbackUrl = b.callbackUrl;
    this.maxRetries = b.maxRetries;
    this.timeoutMs = b.timeoutMs;
    this.payloadVersion = b.payloadVersion;
    this.traceId = b.traceId;
    this.priority = b.priority;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The wire object; the payload is checked as a task's is (field {@code task.payload}). */
  ObjectNode toBody() {
    ObjectNode body = Payloads.newObject();
    if (taskType != null) {
      body.put("taskType", taskType);
    }
    body.set("payload", Payloads.toObject("task.payload", payload));
    if (callbackUrl != null) {
      body.put("callbackUrl", callbackUrl);
    }
    Payloads.putIfSet(body, "maxRetries", maxRetries);
    Payloads.putIfSet(body, "timeoutMs", timeoutMs);
    Payloads.putIfSet(body, "payloadVersion", payloadVersion);
    if (traceId != null) {
      body.put("traceId", traceId);
    }
    Payloads.putIfSet(body, "priority", priority);
    return body;
  }

  /** Builds a {@link ScheduleTaskRequest}. */
  public static final class Builder {
    private String taskType;
    private Object payload;
    private String callbackUrl;
    private Integer maxRetries;
    private Integer timeoutMs;
    private Integer payloadVersion;
    private String traceId;
    private Integer priority;

    private Builder() {}

    public Builder taskType(String taskType) {
      this.taskType = Objects.requireNonNull(taskType, "taskType");
      return this;
    }

    /** A Map, a JsonNode object or any object Jackson turns into a JSON object. */
    public Builder payload(Object payload) {
      this.payload = payload;
      return this;
    }

    public Builder callbackUrl(String callbackUrl) {
      this.callbackUrl = callbackUrl;
      return this;
    }

    public Builder maxRetries(int maxRetries) {
      this.maxRetries = maxRetries;
      return this;
    }

    public Builder timeoutMs(int timeoutMs) {
      this.timeoutMs = timeoutMs;
      return this;
    }

    public Builder payloadVersion(int payloadVersion) {
      this.payloadVersion = payloadVersion;
      return this;
    }

    public Builder traceId(String traceId) {
      this.traceId = traceId;
      return this;
    }

    public Builder priority(int priority) {
      this.priority = priority;
      return this;
    }

    public ScheduleTaskRequest build() {
      return new ScheduleTaskRequest(this);
    }
  }
}
