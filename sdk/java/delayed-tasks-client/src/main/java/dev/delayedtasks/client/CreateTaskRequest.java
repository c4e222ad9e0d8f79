package dev.delayedtasks.client;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Objects;

/**
 * A task to create: its type, payload and time are required.
 *
 * <pre>{@code
 * CreateTaskRequest.builder()
 *     .taskType("order.close")
 *     .payload(Map.of("orderId", "10023"))
 *     .when(When.after(Duration.ofMinutes(30)))
 *     .build();
 * }</pre>
 */
public final class CreateTaskRequest {
  private final TaskFields fields;
  private final When when;
  private final String taskId;

  private CreateTaskRequest(Builder b) {
    this.fields = b.fields.copy();
    this.when = b.when;
    this.taskId = b.taskId;
  }

  public static Builder builder() {
    return new Builder();
  }

  public String taskType() {
    return fields.taskType;
  }

  /** When the task runs, or null when not given (refused before sending). */
  public When when() {
    return when;
  }

  /** The caller's task id, or null when the client is to generate one. */
  public String taskId() {
    return taskId;
  }

  /** The wire body with the given task id; only the fields that were set. Checks first. */
  ObjectNode toBody(String effectiveTaskId) {
    return fields.toBody("payload", when, effectiveTaskId);
  }

  /** Builds a {@link CreateTaskRequest}; every setter is optional except as the API requires. */
  public static final class Builder extends TaskFieldsBuilder<Builder> {
    private When when;
    private String taskId;

    private Builder() {}

    @Override
    Builder self() {
      return this;
    }

    /** When it runs: {@link When#after(java.time.Duration)} or {@link When#at}. Required. */
    public Builder when(When when) {
      this.when = Objects.requireNonNull(when, "when");
      return this;
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
