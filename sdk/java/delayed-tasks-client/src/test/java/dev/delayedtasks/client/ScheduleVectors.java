package dev.delayedtasks.client;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.delayedtasks.client.internal.Json;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Set;

/** The schedule verbs of conformance/client/schedules.json: calls and results as JSON. */
final class ScheduleVectors {
  static final Set<String> OPERATIONS =
      Set.of(
          "createSchedule",
          "getSchedule",
          "listSchedules",
          "updateSchedule",
          "pauseSchedule",
          "resumeSchedule",
          "triggerSchedule",
          "backfillSchedule",
          "deleteSchedule");

  private static final Set<String> SPEC =
      Set.of(
          "cron",
          "every",
          "phase",
          "timeZone",
          "startAt",
          "endAt",
          "maxRuns",
          "jitter",
          "overlap",
          "catchupWindow",
          "pauseOnFailure",
          "task");

  private ScheduleVectors() {}

  static Object invoke(DelayedTasksClient client, String operation, JsonNode input) {
    String id = input.path("scheduleId").asText();
    String note = input.hasNonNull("note") ? input.get("note").asText() : null;
    return switch (operation) {
      case "createSchedule" -> {
        CreateScheduleRequest.Builder b = CreateScheduleRequest.builder().scheduleId(id);
        spec(b, input);
        if (input.has("paused")) {
          b.paused(input.get("paused").asBoolean());
        }
        if (note != null) {
          b.note(note);
        }
        yield client.createSchedule(b.build());
      }
      case "getSchedule" -> client.getSchedule(id);
      case "listSchedules" -> {
        ListSchedulesRequest.Builder b = ListSchedulesRequest.builder();
        if (input.has("taskType")) {
          b.taskType(input.get("taskType").asText());
        }
        if (input.has("paused")) {
          b.paused(input.get("paused").asBoolean());
        }
        if (input.has("owner")) {
          b.owner(input.get("owner").asText());
        }
        if (input.has("pageSize")) {
          b.pageSize(input.get("pageSize").asInt());
        }
        if (input.has("pageToken")) {
          b.pageToken(input.get("pageToken").asText());
        }
        yield client.listSchedules(b.build());
      }
      case "updateSchedule" -> {
        UpdateScheduleRequest.Builder b = UpdateScheduleRequest.builder();
        spec(b, input);
        input
            .properties()
            .forEach(
                e -> {
                  if (e.getValue().isNull()) {
                    switch (e.getKey()) {
                      case "phase" -> b.clearPhase();
                      case "startAt" -> b.clearStartAt();
                      case "endAt" -> b.clearEndAt();
                      case "maxRuns" -> b.clearMaxRuns();
                      case "jitter" -> b.clearJitter();
                      default -> throw new AssertionError("cannot clear " + e.getKey());
                    }
                  }
                });
        yield client.updateSchedule(id, b.build());
      }
      case "pauseSchedule" -> client.pauseSchedule(id, note);
      case "resumeSchedule" -> client.resumeSchedule(id, note);
      case "triggerSchedule" -> client.triggerSchedule(id, overlap(input));
      case "backfillSchedule" ->
          client.backfillSchedule(
              id,
              BackfillScheduleRequest.of(time(input.get("startAt")), time(input.get("endAt")))
                  .withOverlap(overlap(input)));
      case "deleteSchedule" -> {
        client.deleteSchedule(id);
        yield null;
      }
      default -> throw new AssertionError(operation);
    };
  }

  private static void spec(ScheduleSpecBuilder<?> b, JsonNode input) {
    input
        .properties()
        .forEach(
            e -> {
              String key = e.getKey();
              JsonNode v = e.getValue();
              if (v.isNull() || !SPEC.contains(key)) {
                return;
              }
              switch (key) {
                case "cron" -> b.cron(v.asText());
                case "every" -> b.every(v.asText());
                case "phase" -> b.phase(v.asText());
                case "timeZone" -> b.timeZone(v.asText());
                case "startAt" -> b.startAt(time(v));
                case "endAt" -> b.endAt(time(v));
                case "maxRuns" -> b.maxRuns(v.asInt());
                case "jitter" -> b.jitter(v.asText());
                case "overlap" -> b.overlap(OverlapPolicy.fromWire(v.asText()));
                case "catchupWindow" -> b.catchupWindow(v.asText());
                case "pauseOnFailure" -> b.pauseOnFailure(v.asBoolean());
                case "task" -> b.task(task(v));
                default -> throw new AssertionError(key);
              }
            });
  }

  private static ScheduleTaskRequest task(JsonNode v) {
    ScheduleTaskRequest.Builder t = ScheduleTaskRequest.builder();
    v.properties()
        .forEach(
            e -> {
              JsonNode f = e.getValue();
              switch (e.getKey()) {
                case "taskType" -> t.taskType(f.asText());
                case "payload" -> t.payload(ConformanceTest.value(f));
                case "callbackUrl" -> t.callbackUrl(f.asText());
                case "maxRetries" -> t.maxRetries(f.asInt());
                case "timeoutMs" -> t.timeoutMs(f.asInt());
                case "payloadVersion" -> t.payloadVersion(f.asInt());
                case "traceId" -> t.traceId(f.asText());
                case "priority" -> t.priority(f.asInt());
                default -> throw new AssertionError("unknown task input " + e.getKey());
              }
            });
    return t.build();
  }

  private static OverlapPolicy overlap(JsonNode input) {
    return input.has("overlap") ? OverlapPolicy.fromWire(input.get("overlap").asText()) : null;
  }

  private static OffsetDateTime time(JsonNode node) {
    return OffsetDateTime.parse((node.isObject() ? node.get("$time") : node).asText());
  }

  /** A schedule verb's result with the wire names; {@code null} (a delete) as JSON null. */
  static JsonNode toJson(Object result) {
    if (result == null) {
      return NullNode.getInstance();
    }
    if (result instanceof CreateScheduleResult r) {
      ObjectNode out = JsonNodeFactory.instance.objectNode();
      out.put("created", r.created());
      out.set("schedule", schedule(r.schedule()));
      return out;
    }
    if (result instanceof Schedule s) {
      return schedule(s);
    }
    if (result instanceof SchedulePage p) {
      ObjectNode out = JsonNodeFactory.instance.objectNode();
      ArrayNode items = out.putArray("schedules");
      p.schedules().forEach(s -> items.add(summary(s)));
      out.put("nextPageToken", p.nextPageToken());
      return out;
    }
    throw new AssertionError("no JSON form for " + result);
  }

  static boolean handles(Object result) {
    return result instanceof CreateScheduleResult
        || result instanceof Schedule
        || result instanceof SchedulePage;
  }

  private static ObjectNode summary(ScheduleSummary s) {
    ObjectNode out =
        JsonNodeFactory.instance
            .objectNode()
            .put("scheduleId", s.scheduleId())
            .put("owner", s.owner())
            .put("taskType", s.taskType())
            .put("cron", s.cron())
            .put("every", s.every())
            .put("timeZone", s.timeZone())
            .put("paused", s.paused())
            .put("note", s.note());
    time(out, "nextRunTime", s.nextRunTime());
    return out;
  }

  /**
   * The summary's fields (but the two a list derives, from the task and the run times) and more.
   */
  private static JsonNode schedule(Schedule s) {
    ObjectNode out = summary(s.summary());
    out.remove(List.of("taskType", "nextRunTime"));
    out.put("phase", s.phase());
    time(out, "startAt", s.startAt());
    time(out, "endAt", s.endAt());
    out.put("maxRuns", s.maxRuns())
        .put("remainingRuns", s.remainingRuns())
        .put("jitter", s.jitter())
        .put("overlap", s.overlap().wireName())
        .put("catchupWindow", s.catchupWindow())
        .put("pauseOnFailure", s.pauseOnFailure());
    ScheduleTask t = s.task();
    ObjectNode task =
        out.putObject("task")
            .put("taskType", t.taskType())
            .put("payloadVersion", t.payloadVersion())
            .put("callbackUrl", t.callbackUrl())
            .put("maxRetries", t.maxRetries())
            .put("timeoutMs", t.timeoutMs())
            .put("traceId", t.traceId())
            .put("priority", t.priority());
    task.set("payload", t.payload());
    ArrayNode runs = out.putArray("nextRunTimes");
    s.nextRunTimes().forEach(run -> runs.add(Json.formatTime(run)));
    ArrayNode occurrences = out.putArray("recentOccurrences");
    for (ScheduleOccurrence o : s.recentOccurrences()) {
      ObjectNode node = occurrences.addObject().put("taskId", o.taskId());
      time(node, "scheduledAt", o.scheduledAt());
      time(node, "startedAt", o.startedAt());
      node.put("status", o.status() == null ? null : o.status().name());
    }
    out.put("occurrencesStarted", s.occurrencesStarted())
        .put("skippedByOverlap", s.skippedByOverlap())
        .put("missedCatchupWindow", s.missedCatchupWindow());
    time(out, "createdAt", s.createdAt());
    time(out, "updatedAt", s.updatedAt());
    return out;
  }

  private static void time(ObjectNode out, String field, Instant value) {
    out.put(field, value == null ? null : Json.formatTime(value));
  }

  static void assertNullResult(JsonNode want, Object result) {
    assertTrue(want.isNull() && result == null, "want " + want + ", got " + result);
  }
}
