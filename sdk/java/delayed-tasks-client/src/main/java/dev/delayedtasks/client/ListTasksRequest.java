package dev.delayedtasks.client;

import dev.delayedtasks.client.internal.Json;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Filters and paging of a list; every field optional, and only the fields set are sent.
 *
 * <pre>{@code
 * ListTasksRequest.builder()
 *     .status(TaskStatus.FAILED)
 *     .idPrefix("order-")
 *     .dueAfter(Instant.parse("2026-12-03T00:00:00Z"))
 *     .build();
 * }</pre>
 */
public final class ListTasksRequest {
  private final TaskStatus status;
  private final String taskType;
  private final String idPrefix;
  private final String owner;
  private final Instant dueAfter;
  private final Instant dueBefore;
  private final Integer pageSize;
  private final String pageToken;

  private ListTasksRequest(Builder b) {
    this.status = b.status;
    this.taskType = b.taskType;
    this.idPrefix = b.idPrefix;
    this.owner = b.owner;
    this.dueAfter = b.dueAfter;
    this.dueBefore = b.dueBefore;
    this.pageSize = b.pageSize;
    this.pageToken = b.pageToken;
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
    return toBuilder().pageToken(token).build();
  }

  /** A builder holding these filters. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.status = status;
    b.taskType = taskType;
    b.idPrefix = idPrefix;
    b.owner = owner;
    b.dueAfter = dueAfter;
    b.dueBefore = dueBefore;
    b.pageSize = pageSize;
    b.pageToken = pageToken;
    return b;
  }

  /** Query parameters in a fixed order, only those set; times in UTC with milliseconds. */
  Map<String, String> query() {
    Map<String, String> query = new LinkedHashMap<>();
    if (status != null) {
      query.put("status", status.name());
    }
    putIfSet(query, "taskType", taskType);
    putIfSet(query, "idPrefix", idPrefix);
    putIfSet(query, "owner", owner);
    if (dueAfter != null) {
      query.put("dueAfter", Json.formatTime(dueAfter));
    }
    if (dueBefore != null) {
      query.put("dueBefore", Json.formatTime(dueBefore));
    }
    if (pageSize != null) {
      query.put("pageSize", pageSize.toString());
    }
    putIfSet(query, "pageToken", pageToken);
    return query;
  }

  private static void putIfSet(Map<String, String> query, String name, String value) {
    if (value != null) {
      query.put(name, value);
    }
  }

  /** Builds a {@link ListTasksRequest}. */
  public static final class Builder {
    private TaskStatus status;
    private String taskType;
    private String idPrefix;
    private String owner;
    private Instant dueAfter;
    private Instant dueBefore;
    private Integer pageSize;
    private String pageToken;

    private Builder() {}

    /** Only tasks in this status; {@link TaskStatus#FAILED} is the dead-letter list. */
    public Builder status(TaskStatus status) {
      if (status == TaskStatus.UNKNOWN) {
        throw new IllegalArgumentException("UNKNOWN is not a status to filter by");
      }
      this.status = status;
      return this;
    }

    /** Only tasks of this type. */
    public Builder taskType(String taskType) {
      this.taskType = taskType;
      return this;
    }

    /**
     * Only tasks whose id starts with this (case-sensitive). An admin key listing every owner's
     * tasks must name the {@link #owner} too.
     */
    public Builder idPrefix(String idPrefix) {
      this.idPrefix = idPrefix;
      return this;
    }

    /** Admin keys only: this owner's tasks (default for an admin key: every owner's). */
    public Builder owner(String owner) {
      this.owner = owner;
      return this;
    }

    /** Only tasks due at or after this instant. */
    public Builder dueAfter(Instant dueAfter) {
      this.dueAfter = dueAfter;
      return this;
    }

    /** Only tasks due at or after this time (sent in UTC). */
    public Builder dueAfter(OffsetDateTime dueAfter) {
      return dueAfter(Objects.requireNonNull(dueAfter, "dueAfter").toInstant());
    }

    /** Only tasks due before this instant. */
    public Builder dueBefore(Instant dueBefore) {
      this.dueBefore = dueBefore;
      return this;
    }

    /** Only tasks due before this time (sent in UTC). */
    public Builder dueBefore(OffsetDateTime dueBefore) {
      return dueBefore(Objects.requireNonNull(dueBefore, "dueBefore").toInstant());
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
      return new ListTasksRequest(this);
    }
  }
}
