package dev.delayedtasks.client;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayedtasks.client.internal.Json;
import java.time.Instant;

/**
 * One occurrence a schedule started: a task like any other.
 *
 * @param taskId the task it is ({@link DelayedTasksClient#status})
 * @param scheduledAt the nominal time it runs for
 * @param startedAt when Temporal started it (after jitter)
 * @param status the task's status, or null while the task list has not caught up with its start
 */
public record ScheduleOccurrence(
    String taskId, Instant scheduledAt, Instant startedAt, TaskStatus status) {

  static ScheduleOccurrence from(JsonNode node) {
    String status = Json.text(node, "status");
    return new ScheduleOccurrence(
        Json.text(node, "taskId"),
        Json.time(node, "scheduledAt"),
        Json.time(node, "startedAt"),
        status == null ? null : TaskStatus.fromWire(status));
  }
}
