package dev.delayedtasks.client;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A change to a schedule: the fields set replace the schedule's ({@code task} as a whole), the
 * {@code clear...} methods send a field as null. {@code cron} clears {@code every} and {@code
 * phase}; {@code every} clears {@code cron}. The service checks the result as a create before it
 * takes effect.
 */
public final class UpdateScheduleRequest extends ScheduleSpecRequest {
  private UpdateScheduleRequest(ObjectNode spec, ScheduleTaskRequest task) {
    super(spec, task);
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Builds an {@link UpdateScheduleRequest}. */
  public static final class Builder extends ScheduleSpecBuilder<Builder> {
    private Builder() {}

    @Override
    Builder self() {
      return this;
    }

    public Builder clearPhase() {
      body.putNull("phase");
      return this;
    }

    public Builder clearStartAt() {
      body.putNull("startAt");
      return this;
    }

    public Builder clearEndAt() {
      body.putNull("endAt");
      return this;
    }

    public Builder clearMaxRuns() {
      body.putNull("maxRuns");
      return this;
    }

    public Builder clearJitter() {
      body.putNull("jitter");
      return this;
    }

    public UpdateScheduleRequest build() {
      return new UpdateScheduleRequest(body, task);
    }
  }
}
