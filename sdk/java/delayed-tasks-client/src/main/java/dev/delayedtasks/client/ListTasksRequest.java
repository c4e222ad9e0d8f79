package dev.delayedtasks.client;

import java.util.LinkedHashMap;
import java.util.Map;

/** Filters and paging of a list; every field optional. */
public final class ListTasksRequest {
  private final TaskStatus status;
  private final String taskType;
  private final Integer pageSize;
  private final String pageToken;

  private ListTasksRequest(TaskStatus status, String taskType, Integer pageSize, String pageToken) {
    this.status = status;
    this.taskType = taskType;
    this.pageSize = pageSize;
    this.pageToken = pageToken;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** All tasks, the server's page size. */
  public static ListTasksRequest all() {
    return builder().build();
  }

  public String pageToken() {
    return pageToken;
  }

  /** The same filters on another page. */
  public ListTasksRequest withPageToken(String token) {
    return new ListTasksRequest(status, taskType, pageSize, token);
  }

  /** Query parameters in a fixed order, only those set. */
  Map<String, String> query() {
    Map<String, String> query = new LinkedHashMap<>();
    if (status != null) {
      query.put("status", status.name());
    }
    if (taskType != null) {
      query.put("taskType", taskType);
    }
    if (pageSize != null) {
      query.put("pageSize", pageSize.toString());
    }
    if (pageToken != null) {
      query.put("pageToken", pageToken);
    }
    return query;
  }

  /** Builds a {@link ListTasksRequest}. */
  public static final class Builder {
    private TaskStatus status;
    private String taskType;
    private Integer pageSize;
    private String pageToken;

    private Builder() {}

    /** Only tasks in this status; {@link TaskStatus#FAILED} is the dead-letter list. */
    public Builder status(TaskStatus status) {
      this.status = status;
      return this;
    }

    public Builder taskType(String taskType) {
      this.taskType = taskType;
      return this;
    }

    /** 1..1000 (server default 50). */
    public Builder pageSize(int pageSize) {
      this.pageSize = pageSize;
      return this;
    }

    /** The {@code nextPageToken} of the previous page. */
    public Builder pageToken(String pageToken) {
      this.pageToken = pageToken;
      return this;
    }

    public ListTasksRequest build() {
      return new ListTasksRequest(status, taskType, pageSize, pageToken);
    }
  }
}
