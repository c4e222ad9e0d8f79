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
  private final String taskType;
  private final Object payload;
  private final When schedule;
  private final String callbackUrl;
  private final String taskId;
  private final Integer maxRetries;
  private final Integer timeoutMs;
  private final Integer payloadVersion;
  private final String traceId;
  private final Integer priority;

  private CreateTaskRequest(Builder b) {
    this.taskType = b.taskType;
    this.payload = b.payload;
    this.schedule = new When(b.delay, b.executeAt);
    this.callbackUrl = b.callbackUrl;
    this.taskId = b.taskId;
    this.maxRetries = b.maxRetries;
    this.timeoutMs = b.timeoutMs;
    this.payloadVersion = b.payloadVersion;
    this.traceId = b.traceId;
    this.priority = b.priority;
  }

  public static Builder builder() {
    return new Builder();
  }

  public String taskType() {
    return taskType;
  }

  /** The caller's task id, or null when the client is to generate one. */
  public String taskId() {
    return taskId;
  }

  /** The wire body with the given task id; only the fields that were set. Checks first. */
  ObjectNode toBody(String effectiveTaskId) {
    ObjectNode payloadNode = Payloads.toObject("payload", payload);
    schedule.check(true);
    ObjectNode body = Payloads.newObject();
    if (taskType != null) {
      body.put("taskType", taskType);
    }
    body.set("payload", payloadNode);
    schedule.writeTo(body);
    if (callbackUrl != null) {
      body.put("callbackUrl", callbackUrl);
    }
    body.put("taskId", effectiveTaskId);
    Payloads.putIfSet(body, "maxRetries", maxRetries);
    Payloads.putIfSet(body, "timeoutMs", timeoutMs);
    Payloads.putIfSet(body, "payloadVersion", payloadVersion);
    if (traceId != null) {
      body.put("traceId", traceId);
    }
    Payloads.putIfSet(body, "priority", priority);
    return body;
  }

  /** Builds a {@link CreateTaskRequest}; every setter is optional except as the API requires. */
  public static final class Builder {
    private String taskType;
    private Object payload;
    private Duration delay;
    private Instant executeAt;
    private String callbackUrl;
    private String taskId;
    private Integer maxRetries;
    private Integer timeoutMs;
    private Integer payloadVersion;
    private String traceId;
    private Integer priority;

    private Builder() {}

    /** Lower-case name of the kind of task, e.g. {@code order.close}. */
    public Builder taskType(String taskType) {
      this.taskType = Objects.requireNonNull(taskType, "taskType");
      return this;
    }

    /**
     * A JSON object: a {@code Map}, a Jackson {@code ObjectNode}, or a bean Jackson can write as an
     * object. Non-finite numbers and integers beyond ±(2^53−1) are refused before sending.
     */
    public Builder payload(Object payload) {
      this.payload = payload;
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

    /** Absolute http(s) URL; may be omitted when the task type's policy has one. */
    public Builder callbackUrl(String callbackUrl) {
      this.callbackUrl = callbackUrl;
      return this;
    }

    /** Client-chosen id; when absent the client generates a UUID, reused on every retry. */
    public Builder taskId(String taskId) {
      this.taskId = taskId;
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

    /** 1 highest to 5 lowest. */
    public Builder priority(int priority) {
      this.priority = priority;
      return this;
    }

    public CreateTaskRequest build() {
      return new CreateTaskRequest(this);
    }
  }
}
