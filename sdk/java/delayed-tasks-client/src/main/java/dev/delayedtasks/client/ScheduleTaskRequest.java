package dev.delayedtasks.client;

import com.fasterxml.jackson.databind.node.ObjectNode;

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
    return fields.toBody("task.payload");
  }

  /** Builds a {@link ScheduleTaskRequest}. */
  public static final class Builder extends TaskFieldsBuilder<Builder> {

    private Builder() {}

    @Override
    Builder self() {
      return this;
    }

    public ScheduleTaskRequest build() {
      return new ScheduleTaskRequest(this);
    }
  }
}
