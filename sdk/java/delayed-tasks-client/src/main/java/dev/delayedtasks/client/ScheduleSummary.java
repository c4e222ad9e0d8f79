package dev.delayedtasks.client;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayedtasks.client.internal.Json;
import java.time.Instant;

/**
 * A schedule list entry; get the schedule for its task, run times and occurrences.
 *
 * @param nextRunTime the next run, or null while paused or after the last run
 */
public record ScheduleSummary(
    String scheduleId,
    String owner,
    String taskType,
    String cron,
    String every,
    String timeZone,
    boolean paused,
    String note,
    Instant nextRunTime) {

  static ScheduleSummary from(JsonNode node) {
    return new ScheduleSummary(
        Json.text(node, "scheduleId"),
        Json.text(node, "owner"),
        Json.text(node, "taskType"),
        Json.text(node, "cron"),
        Json.text(node, "every"),
        Json.text(node, "timeZone"),
        node.path("paused").asBoolean(),
        Json.text(node, "note"),
        Json.time(node, "nextRunTime"));
  }
}
