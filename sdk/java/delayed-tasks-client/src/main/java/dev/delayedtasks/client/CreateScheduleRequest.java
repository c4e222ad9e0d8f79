package dev.delayedtasks.client;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Objects;

/**
 * A schedule to create: exactly one of {@code cron} or {@code every}, and the task each occurrence
 * runs.
 *
 * <pre>{@code
 * CreateScheduleRequest.builder()
 *     .scheduleId("daily-report")
 *     .cron("0 2 * * *")
 *     .timeZone("Asia/Shanghai")
 *     .task(ScheduleTaskRequest.builder().taskType("report.generate").payload(Map.of()).build())
 *     .build();
 * }</pre>
 */
public final class CreateScheduleRequest extends ScheduleSpecRequest {
  private CreateScheduleRequest(ObjectNode spec, ScheduleTaskRequest task) {
    super(spec, task);
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link CreateScheduleRequest}; {@code scheduleId} and {@code task} are required. */
  public static final class Builder extends ScheduleSpecBuilder<Builder> {
    private String scheduleId;

    private Builder() {}

    @Override
    Builder self() {
      return this;
    }

    /** Chosen by the client, unique per owner: the same request again is an idempotent repeat. */
    public Builder scheduleId(String scheduleId) {
      this.scheduleId = Objects.requireNonNull(scheduleId, "scheduleId");
      return this;
    }

    /** Create it paused. */
    public Builder paused(boolean paused) {
      body.put("paused", paused);
      return this;
    }

    /** Kept with the paused state. */
    public Builder note(String note) {
      body.put("note", Objects.requireNonNull(note, "note"));
      return this;
    }

    public CreateScheduleRequest build() {
      ObjectNode spec =
          Payloads.newObject().put("scheduleId", Objects.requireNonNull(scheduleId, "scheduleId"));
      spec.setAll(body);
      return new CreateScheduleRequest(spec, Objects.requireNonNull(task, "task"));
    }
  }
}
