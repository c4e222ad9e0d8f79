package dev.delayedtasks.client;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * {@code POST /api/v1/leases}: long-polls 1 to 10 queues for up to {@code max} (1 to 10, default 1)
 * tasks, waiting up to {@code waitSeconds} (0 to 20, default 20) for the first.
 */
public final class LeaseRequest {
  private final List<String> queues;
  private final Integer max;
  private final Integer waitSeconds;
  private final String workerIdentity;

  private LeaseRequest(Builder b) {
    this.queues = List.copyOf(b.queues);
    this.max = b.max;
    this.waitSeconds = b.waitSeconds;
    this.workerIdentity = b.workerIdentity;
  }

  public static Builder builder() {
    return new Builder();
  }

  public List<String> queues() {
    return queues;
  }

  /** How long the call may take: the poll, plus at least 10 s for the answer. */
  Duration callTimeout(Duration base) {
    Duration margin = base.compareTo(Duration.ofSeconds(10)) > 0 ? base : Duration.ofSeconds(10);
    return margin.plusSeconds(waitSeconds == null ? 20 : waitSeconds);
  }

  ObjectNode toBody() {
    ObjectNode body = Payloads.newObject();
    queues.forEach(body.putArray("queues")::add);
    if (max != null) {
      body.put("max", max);
    }
    if (waitSeconds != null) {
      body.put("waitSeconds", waitSeconds);
    }
    if (workerIdentity != null) {
      body.put("workerIdentity", workerIdentity);
    }
    return body;
  }

  /** Builds a {@link LeaseRequest}; fields not set are not sent. */
  public static final class Builder {
    private List<String> queues = List.of();
    private Integer max;
    private Integer waitSeconds;
    private String workerIdentity;

    private Builder() {}

    public Builder queues(List<String> queues) {
      this.queues = List.copyOf(Objects.requireNonNull(queues, "queues"));
      return this;
    }

    public Builder queues(String... queues) {
      return queues(List.of(queues));
    }

    public Builder max(int max) {
      this.max = max;
      return this;
    }

    public Builder waitSeconds(int waitSeconds) {
      this.waitSeconds = waitSeconds;
      return this;
    }

    /** Shown in the task's status while leased (at most 200 characters). */
    public Builder workerIdentity(String workerIdentity) {
      this.workerIdentity = workerIdentity;
      return this;
    }

    public LeaseRequest build() {
      return new LeaseRequest(this);
    }
  }
}
