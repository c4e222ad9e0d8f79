package dev.delayedtasks.client;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayedtasks.client.internal.Json;
import java.time.Instant;

/**
 * A schedule as a list shows it (get the schedule for its task, run times and occurrences), and the
 * first component of a {@link Schedule}: one definition of these fields and their JSON mapping.
 *
 * @param scheduleId the client-chosen id
 * @param owner the owner of the API key that created it
 * @param taskType the type of the task every occurrence runs
 * @param cron the cron expression, or null for an interval
 * @param every the interval ({@code 15m}), or null for a cron
 * @param timeZone the IANA time zone the cron is read in
 * @param paused whether it is paused
 * @param note the note of the last pause or resume, or null
 * @param nextRunTime the next nominal run time (also while paused), or null after the last run
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

  /** A list entry. */
  static ScheduleSummary from(JsonNode node) {
    return from(node, Json.text(node, "taskType"), Json.time(node, "nextRunTime"));
  }

  /**
   * The summary of a whole schedule, as the service derives a list entry from one: the task's type
   * and the first of the next run times.
   */
  static ScheduleSummary ofSchedule(JsonNode node) {
    JsonNode next = node.path("nextRunTimes").path(0);
    return from(
        node,
        Json.text(node.path("task"), "taskType"),
        next.isTextual() ? Json.parseTime(next.asText()) : null);
  }

  private static ScheduleSummary from(JsonNode node, String taskType, Instant nextRunTime) {
    return new ScheduleSummary(
        Json.text(node, "scheduleId"),
        Json.text(node, "owner"),
        taskType,
        Json.text(node, "cron"),
        Json.text(node, "every"),
        Json.text(node, "timeZone"),
        node.path("paused").asBoolean(),
        Json.text(node, "note"),
        nextRunTime);
  }
}
