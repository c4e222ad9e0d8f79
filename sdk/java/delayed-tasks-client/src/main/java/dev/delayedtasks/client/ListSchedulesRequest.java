package dev.delayedtasks.client;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/** The filters of {@link DelayedTasksClient#listSchedules}; those not set are not sent. */
public final class ListSchedulesRequest {
  private final Map<String, String> query;

  private ListSchedulesRequest(Map<String, String> query) {
    this.query = Map.copyOf(query);
  }

  public static Builder builder() {
    return new Builder();
  }

  /** No filter: the first page of every schedule the key sees. */
  public static ListSchedulesRequest all() {
    return builder().build();
  }

  Map<String, String> query() {
    return query;
  }

  /** Builds a {@link ListSchedulesRequest}. */
  public static final class Builder {
    private final Map<String, String> query = new LinkedHashMap<>();

    private Builder() {}

    public Builder taskType(String taskType) {
      query.put("taskType", Objects.requireNonNull(taskType, "taskType"));
      return this;
    }

    /** Only paused (true) or only active (false) schedules. */
    public Builder paused(boolean paused) {
      query.put("paused", Boolean.toString(paused));
      return this;
    }

    /** Admin keys only: this owner's schedules. */
    public Builder owner(String owner) {
      query.put("owner", Objects.requireNonNull(owner, "owner"));
      return this;
    }

    /** 1 to 1000 (the service's default: 50). */
    public Builder pageSize(int pageSize) {
      query.put("pageSize", Integer.toString(pageSize));
      return this;
    }

    /** {@code nextPageToken} of the previous page. */
    public Builder pageToken(String pageToken) {
      query.put("pageToken", Objects.requireNonNull(pageToken, "pageToken"));
      return this;
    }

    public ListSchedulesRequest build() {
      return new ListSchedulesRequest(query);
    }
  }
}
