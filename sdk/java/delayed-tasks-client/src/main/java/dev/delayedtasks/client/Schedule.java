package dev.delayedtasks.client;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayedtasks.client.internal.Json;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * A recurring task as the API returns it: its spec as stored, its policies, paused state and note,
 * the next run times (from Temporal) and the recent occurrences. Nullable components say so.
 *
 * <pre>{@code
 * Schedule schedule = client.getSchedule("daily-report");
 * schedule.paused();            // id, owner, cron or every, time zone, paused, note (read through)
 * schedule.nextRunTimes();       // the next nominal run times
 * }</pre>
 *
 * @param summary the schedule as a list shows it: its id, owner, task type ({@code
 *     task().taskType()}), cron or interval, time zone, paused state, note and next run time (the
 *     first of {@code nextRunTimes})
 * @param phase the interval's offset, or null
 * @param startAt no run before it, or null
 * @param endAt no run after it, or null
 * @param maxRuns the run limit, or null
 * @param remainingRuns runs left under the limit, or null without one
 * @param jitter the jitter ({@code 30s}), or null
 * @param overlap the overlap policy
 * @param catchupWindow how late a missed run may still start after an outage
 * @param pauseOnFailure whether a failed occurrence pauses the schedule
 * @param task the task every occurrence runs
 * @param nextRunTimes the next nominal run times; listed while paused too (none starts until
 *     resumed); empty after the last run
 * @param recentOccurrences the newest occurrences, oldest first
 * @param occurrencesStarted occurrences started so far
 * @param skippedByOverlap runs not started because of the overlap policy
 * @param missedCatchupWindow runs dropped after an outage, older than the catch-up window
 * @param createdAt when it was created
 * @param updatedAt when it was last changed, or null
 */
public record Schedule(
    ScheduleSummary summary,
    String phase,
    Instant startAt,
    Instant endAt,
    Integer maxRuns,
    Integer remainingRuns,
    String jitter,
    OverlapPolicy overlap,
    String catchupWindow,
    boolean pauseOnFailure,
    ScheduleTask task,
    List<Instant> nextRunTimes,
    List<ScheduleOccurrence> recentOccurrences,
    int occurrencesStarted,
    int skippedByOverlap,
    int missedCatchupWindow,
    Instant createdAt,
    Instant updatedAt) {

  public Schedule {
    nextRunTimes = List.copyOf(nextRunTimes);
    recentOccurrences = List.copyOf(recentOccurrences);
  }

  // The summary's fields, read as on a list entry (schedule.paused(), as in the other SDKs).

  /** The schedule's id. */
  public String scheduleId() {
    return summary.scheduleId();
  }

  /** The team or service it belongs to. */
  public String owner() {
    return summary.owner();
  }

  /** The cron expression as given, or null for an interval. */
  public String cron() {
    return summary.cron();
  }

  /** The interval as given, or null for a cron. */
  public String every() {
    return summary.every();
  }

  /** The IANA time zone the cron is read in. */
  public String timeZone() {
    return summary.timeZone();
  }

  /** Whether it is paused. */
  public boolean paused() {
    return summary.paused();
  }

  /** The note of the last pause or resume, or null. */
  public String note() {
    return summary.note();
  }

  static Schedule from(JsonNode node) {
    List<Instant> runs = new ArrayList<>();
    node.path("nextRunTimes").forEach(time -> runs.add(Json.parseTime(time.asText())));
    List<ScheduleOccurrence> occurrences = new ArrayList<>();
    node.path("recentOccurrences").forEach(o -> occurrences.add(ScheduleOccurrence.from(o)));
    return new Schedule(
        ScheduleSummary.ofSchedule(node),
        Json.text(node, "phase"),
        Json.time(node, "startAt"),
        Json.time(node, "endAt"),
        Json.integer(node, "maxRuns"),
        Json.integer(node, "remainingRuns"),
        Json.text(node, "jitter"),
        OverlapPolicy.fromWire(Json.text(node, "overlap")),
        Json.text(node, "catchupWindow"),
        node.path("pauseOnFailure").asBoolean(),
        ScheduleTask.from(node.path("task")),
        runs,
        occurrences,
        node.path("occurrencesStarted").asInt(),
        node.path("skippedByOverlap").asInt(),
        node.path("missedCatchupWindow").asInt(),
        Json.time(node, "createdAt"),
        Json.time(node, "updatedAt"));
  }
}
