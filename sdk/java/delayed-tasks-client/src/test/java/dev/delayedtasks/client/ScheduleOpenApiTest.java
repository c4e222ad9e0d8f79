package dev.delayedtasks.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayedtasks.client.internal.Json;
import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The schedule types and bodies against {@code docs/openapi.json}, both ways. */
class ScheduleOpenApiTest {
  private static final String SCHEDULES = "/api/v1/schedules";
  private static final String ONE = SCHEDULES + "/{scheduleId}";
  private static JsonNode paths;

  @BeforeAll
  static void load() throws IOException {
    Path file = Path.of(System.getProperty("openapi.file", "../../../docs/openapi.json"));
    if (!Files.isRegularFile(file)) {
      fail("no OpenAPI document at " + file.toAbsolutePath());
    }
    paths = Json.parse(Files.readAllBytes(file)).path("paths");
  }

  private static JsonNode schema(String path, String method, String where) {
    JsonNode schema =
        paths.path(path).path(method).at(where).path("content").path("application/json");
    assertTrue(schema.path("schema").isObject(), "no schema for " + method + " " + path + where);
    return schema.path("schema");
  }

  private static Set<String> properties(JsonNode schema) {
    Set<String> names = new TreeSet<>();
    schema.path("properties").fieldNames().forEachRemaining(names::add);
    return names;
  }

  private static Set<String> components(Class<? extends Record> type) {
    return Arrays.stream(type.getRecordComponents())
        .map(RecordComponent::getName)
        .collect(Collectors.toCollection(TreeSet::new));
  }

  /**
   * A schedule is its summary's components and its own, the summary's standing in for them, but the
   * two a list derives: {@code taskType} (the task's) and {@code nextRunTime} (the first of {@code
   * nextRunTimes}).
   */
  @Test
  void everyScheduleAnswerIsTheSchedule() {
    Set<String> schedule = components(Schedule.class);
    assertTrue(schedule.remove("summary"));
    schedule.addAll(components(ScheduleSummary.class));
    assertTrue(schedule.removeAll(Set.of("taskType", "nextRunTime")));
    for (Map.Entry<String, String> route :
        Map.of(
                ONE,
                "get",
                ONE + "/pause",
                "post",
                ONE + "/resume",
                "post",
                ONE + "/trigger",
                "post",
                ONE + "/backfill",
                "post")
            .entrySet()) {
      JsonNode answer = schema(route.getKey(), route.getValue(), "/responses/200");
      assertEquals(properties(answer), schedule, route.getKey());
      JsonNode props = answer.path("properties");
      assertEquals(properties(props.path("task")), components(ScheduleTask.class));
      assertEquals(
          properties(props.path("recentOccurrences").path("items")),
          components(ScheduleOccurrence.class));
    }
    assertEquals(properties(schema(SCHEDULES, "post", "/responses/201")), schedule);
    assertEquals(properties(schema(ONE, "patch", "/responses/200")), schedule);
  }

  @Test
  void theListPageAndItsFilters() {
    JsonNode page = schema(SCHEDULES, "get", "/responses/200");
    assertEquals(properties(page), components(SchedulePage.class));
    assertEquals(
        properties(page.path("properties").path("schedules").path("items")),
        components(ScheduleSummary.class));
    Set<String> parameters = new TreeSet<>();
    paths
        .path(SCHEDULES)
        .path("get")
        .path("parameters")
        .forEach(p -> parameters.add(p.path("name").asText()));
    ListSchedulesRequest every =
        ListSchedulesRequest.builder()
            .taskType("t")
            .paused(true)
            .owner("o")
            .pageSize(1)
            .pageToken("x")
            .build();
    assertEquals(parameters, new TreeSet<>(every.query().keySet()));
  }

  @Test
  void theCreateAndUpdateBodies() {
    ScheduleTaskRequest task =
        ScheduleTaskRequest.builder()
            .taskType("t")
            .payload(Map.of())
            .callbackUrl("http://127.0.0.1:9/cb")
            .maxRetries(1)
            .timeoutMs(1000)
            .payloadVersion(1)
            .traceId("trace")
            .priority(1)
            .build();
    JsonNode create = schema(SCHEDULES, "post", "/requestBody");
    // callbackUrl or delivery, not both: the fields of both kinds of task.
    Set<String> written = new TreeSet<>(fields(task.toBody()));
    written.addAll(
        fields(
            ScheduleTaskRequest.builder()
                .taskType("t")
                .payload(Map.of())
                .delivery(Delivery.pull())
                .build()
                .toBody()));
    assertEquals(properties(create.path("properties").path("task")), written);
    CreateScheduleRequest.Builder everyCreate =
        spec(CreateScheduleRequest.builder().scheduleId("s").paused(true).note("n"), task);
    assertEquals(properties(create), fields(everyCreate.build().toBody()));
    assertEquals(properties(create), setters(CreateScheduleRequest.Builder.class, Set.of()));

    JsonNode update = schema(ONE, "patch", "/requestBody");
    assertEquals(
        properties(update), fields(spec(UpdateScheduleRequest.builder(), task).build().toBody()));
    UpdateScheduleRequest cleared =
        UpdateScheduleRequest.builder()
            .clearPhase()
            .clearStartAt()
            .clearEndAt()
            .clearMaxRuns()
            .clearJitter()
            .build();
    // What the update may clear is what the document lets be null.
    Set<String> nullable = new TreeSet<>();
    update
        .path("properties")
        .properties()
        .forEach(
            e -> {
              if (!e.getValue().findValues("nullable").stream()
                  .filter(JsonNode::asBoolean)
                  .toList()
                  .isEmpty()) {
                nullable.add(e.getKey());
              }
            });
    assertEquals(nullable, fields(cleared.toBody()));
  }

  @Test
  void theBackfillBody() {
    JsonNode body =
        BackfillScheduleRequest.of(Instant.EPOCH, Instant.EPOCH)
            .withOverlap(OverlapPolicy.SKIP)
            .toBody();
    assertEquals(properties(schema(ONE + "/backfill", "post", "/requestBody")), fields(body));
  }

  @Test
  void overlapPoliciesAreTheEnum() {
    Set<String> values = new TreeSet<>();
    schema(ONE, "get", "/responses/200")
        .path("properties")
        .path("overlap")
        .path("anyOf")
        .forEach(option -> option.path("enum").forEach(v -> values.add(v.asText())));
    Set<String> known =
        Stream.of(OverlapPolicy.values())
            .filter(p -> p != OverlapPolicy.UNKNOWN)
            .map(OverlapPolicy::wireName)
            .collect(Collectors.toCollection(TreeSet::new));
    assertEquals(values, known);
  }

  private static <B extends ScheduleSpecBuilder<B>> B spec(B b, ScheduleTaskRequest task) {
    return b.cron("c")
        .every("e")
        .phase("p")
        .timeZone("UTC")
        .startAt(Instant.EPOCH)
        .endAt(Instant.EPOCH)
        .maxRuns(1)
        .jitter("j")
        .overlap(OverlapPolicy.SKIP)
        .catchupWindow("w")
        .pauseOnFailure(true)
        .task(task);
  }

  private static Set<String> fields(JsonNode body) {
    Set<String> names = new TreeSet<>();
    body.fieldNames().forEachRemaining(names::add);
    return names;
  }

  /** The public setters of a builder and of its spec base class, by wire name. */
  private static Set<String> setters(Class<?> builder, Set<String> skip) {
    return Stream.concat(
            Stream.of(builder.getDeclaredMethods()),
            Stream.of(ScheduleSpecBuilder.class.getDeclaredMethods()))
        .filter(m -> Modifier.isPublic(m.getModifiers()) && !Modifier.isStatic(m.getModifiers()))
        .map(Method::getName)
        .filter(name -> !name.equals("build") && !skip.contains(name))
        .collect(Collectors.toCollection(TreeSet::new));
  }
}
