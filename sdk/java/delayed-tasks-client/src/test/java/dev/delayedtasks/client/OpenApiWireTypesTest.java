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
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The wire types against the API's committed OpenAPI document ({@code docs/openapi.json}, generated
 * from the API's schemas): every property of a schema exists in the Java type and every component
 * of the Java type in the schema. A property added to the API fails here until the SDK has it.
 */
class OpenApiWireTypesTest {
  private static final String TASKS = "/api/v1/tasks";
  private static JsonNode paths;

  @BeforeAll
  static void load() throws IOException {
    Path file = Path.of(System.getProperty("openapi.file", "../../../docs/openapi.json"));
    if (!Files.isRegularFile(file)) {
      fail("no OpenAPI document at " + file.toAbsolutePath());
    }
    paths = Json.parse(Files.readAllBytes(file)).path("paths");
  }

  private static JsonNode response(String path, String method, String status) {
    JsonNode schema =
        paths
            .path(path)
            .path(method)
            .path("responses")
            .path(status)
            .path("content")
            .path("application/json")
            .path("schema");
    assertTrue(schema.isObject(), "no schema for " + method + " " + path + " " + status);
    return schema;
  }

  private static JsonNode requestBody(String path, String method) {
    JsonNode schema =
        paths
            .path(path)
            .path(method)
            .path("requestBody")
            .path("content")
            .path("application/json")
            .path("schema");
    assertTrue(schema.isObject(), "no request body for " + method + " " + path);
    return schema;
  }

  private static Set<String> properties(JsonNode schema) {
    Set<String> names = new TreeSet<>();
    schema.path("properties").fieldNames().forEachRemaining(names::add);
    assertTrue(!names.isEmpty(), "a schema without properties: " + schema);
    return names;
  }

  /** {@code enum: [...]}, or TypeBox's {@code anyOf: [{enum: [one]}, ...]}. */
  private static Set<String> enumValues(JsonNode schema) {
    Set<String> values = new TreeSet<>();
    schema.path("enum").forEach(v -> values.add(v.asText()));
    schema
        .path("anyOf")
        .forEach(option -> option.path("enum").forEach(v -> values.add(v.asText())));
    assertTrue(!values.isEmpty(), "not an enum: " + schema);
    return values;
  }

  private static Set<String> components(Class<? extends Record> type) {
    return Arrays.stream(type.getRecordComponents())
        .map(RecordComponent::getName)
        .collect(Collectors.toCollection(TreeSet::new));
  }

  /** The enum's constants but {@code UNKNOWN}, this SDK's stand-in for values of newer servers. */
  private static Set<String> known(Class<? extends Enum<?>> type) {
    return Arrays.stream(type.getEnumConstants())
        .map(Enum::name)
        .filter(name -> !name.equals("UNKNOWN"))
        .collect(Collectors.toCollection(TreeSet::new));
  }

  /** A task is its summary's components and its own, the summary's standing in for them. */
  @Test
  void taskHasEveryPropertyOfTheTaskSchemaAndNothingElse() {
    JsonNode task = response(TASKS, "post", "201");
    Set<String> components = components(Task.class);
    assertTrue(components.remove("summary"));
    components.addAll(components(TaskSummary.class));
    // The summary's deliveryMode is, on a whole task, its delivery's mode: not a property of its
    // own.
    assertTrue(components.remove("deliveryMode"));
    assertEquals(properties(task), components);
    assertEquals(
        properties(task.path("properties").path("lastError")), components(TaskError.class));
    JsonNode attempt = task.path("properties").path("attemptHistory").path("items");
    assertEquals(properties(attempt), components(TaskAttempt.class));
    assertEquals(
        enumValues(attempt.path("properties").path("outcome")), known(AttemptOutcome.class));
  }

  /**
   * Each field of a task's summary is an accessor of the task too (task.priority(), as a list
   * entry's).
   */
  @Test
  void aTaskReadsEachFieldOfItsSummary() throws ReflectiveOperationException {
    for (RecordComponent component : TaskSummary.class.getRecordComponents()) {
      Method own = Task.class.getMethod(component.getName());
      assertEquals(
          component.getGenericType(),
          own.getGenericReturnType(),
          "Task." + component.getName() + "() returns the summary's " + component.getName());
    }
  }

  @Test
  void everySingleTaskRouteAnswersTheSameTask() {
    Set<String> task = properties(response(TASKS, "post", "201"));
    for (Map.Entry<String, String> route :
        Map.of(
                TASKS + "/{taskId}", "get",
                TASKS + "/{taskId}/cancel", "post",
                TASKS + "/{taskId}/reschedule", "post",
                TASKS + "/{taskId}/replay", "post")
            .entrySet()) {
      assertEquals(
          task, properties(response(route.getKey(), route.getValue(), "200")), route.getKey());
    }
  }

  @Test
  void theListPageAndItsSummaries() {
    JsonNode page = response(TASKS, "get", "200");
    assertEquals(properties(page), components(TaskPage.class));
    JsonNode summary = page.path("properties").path("tasks").path("items");
    assertEquals(properties(summary), components(TaskSummary.class));
    assertEquals(
        properties(summary.path("properties").path("lastError")), components(TaskError.class));
  }

  @Test
  void theListFiltersAreTheQueryParameters() {
    Set<String> parameters = new TreeSet<>();
    paths
        .path(TASKS)
        .path("get")
        .path("parameters")
        .forEach(
            p -> {
              assertEquals("query", p.path("in").asText());
              parameters.add(p.path("name").asText());
            });
    ListTasksRequest everyFilter =
        ListTasksRequest.builder()
            .status(TaskStatus.FAILED)
            .taskType("t")
            .idPrefix("p")
            .owner("o")
            .dueAfter(Instant.EPOCH)
            .dueBefore(Instant.EPOCH)
            .pageSize(1)
            .pageToken("x")
            .build();
    assertEquals(parameters, new TreeSet<>(everyFilter.query().keySet()));
    // listAll's next page is withPageToken: toBuilder must carry every filter over.
    assertEquals(
        everyFilter.query(),
        everyFilter.toBuilder().build().query(),
        "ListTasksRequest.toBuilder() drops a filter");
  }

  /**
   * The create body: what the request writes with every setter used (a delay in one body, a time in
   * the other), and the builder's setters, where {@code when} stands for the wire's {@code
   * delaySeconds} and {@code executeAt}.
   */
  @Test
  void theCreateBody() {
    Set<String> schema = properties(requestBody(TASKS, "post"));
    CreateTaskRequest.Builder every =
        CreateTaskRequest.builder()
            .taskType("t")
            .payload(Map.of())
            .callbackUrl("http://127.0.0.1:9/cb")
            .taskId("id")
            .maxRetries(1)
            .timeoutMs(1000)
            .payloadVersion(1)
            .traceId("trace")
            .priority(1);
    Set<String> written = new TreeSet<>();
    every
        .when(When.after(Duration.ofSeconds(1)))
        .build()
        .toBody("id")
        .fieldNames()
        .forEachRemaining(written::add);
    CreateTaskRequest.Builder timed =
        CreateTaskRequest.builder().taskType("t").payload(Map.of()).when(When.at(Instant.EPOCH));
    timed.build().toBody("id").fieldNames().forEachRemaining(written::add);
    CreateTaskRequest.builder()
        .taskType("t")
        .payload(Map.of())
        .delivery(Delivery.pull("q", 30))
        .when(When.after(Duration.ZERO))
        .build()
        .toBody("id")
        .fieldNames()
        .forEachRemaining(written::add);
    assertEquals(schema, written);

    Set<String> setters =
        Stream.of(CreateTaskRequest.Builder.class.getDeclaredMethods())
            .filter(m -> Modifier.isPublic(m.getModifiers()) && !m.getName().equals("build"))
            .flatMap(
                m ->
                    m.getName().equals("when")
                        ? Stream.of("delaySeconds", "executeAt")
                        : Stream.of(m.getName()))
            .collect(Collectors.toCollection(TreeSet::new));
    assertEquals(schema, setters);
  }

  @Test
  void theReplayBody() {
    Set<String> written = new TreeSet<>();
    ReplayRequest.builder()
        .payload(Map.of())
        .payloadVersion(1)
        .maxRetries(1)
        .when(When.after(Duration.ZERO))
        .build()
        .toBody()
        .fieldNames()
        .forEachRemaining(written::add);
    written.add("executeAt"); // the other half of the schedule: one of the two is written
    assertEquals(properties(requestBody(TASKS + "/{taskId}/replay", "post")), written);
  }

  /**
   * The error body {@code {"error": {code, message, details}}} is the exception's {@code code()},
   * {@code getMessage()} and {@code details()}; its other accessors come from the response, not the
   * body ({@code status()}, {@code requestId()}) or are the code as sent ({@code rawCode()}).
   */
  @Test
  void theErrorBody() {
    JsonNode error = response(TASKS, "post", "400").path("properties").path("error");
    assertEquals(Set.of("code", "message", "details"), properties(error));
    assertEquals(
        properties(error.path("properties").path("details").path("items")),
        components(ErrorDetail.class));

    Set<String> accessors =
        Stream.of(DelayedTaskException.class.getDeclaredMethods())
            .filter(
                m -> Modifier.isPublic(m.getModifiers()) && !Modifier.isStatic(m.getModifiers()))
            .map(Method::getName)
            .filter(name -> !name.equals("toString"))
            .collect(Collectors.toCollection(TreeSet::new));
    Set<String> expected = new TreeSet<>(properties(error));
    expected.remove("message"); // Throwable.getMessage()
    expected.addAll(Set.of("status", "requestId", "rawCode"));
    assertEquals(expected, accessors);
  }

  @Test
  void theErrorCodesAreTheApiCatalog() {
    Set<String> codes = new TreeSet<>();
    paths.forEach(
        route ->
            route.forEach(
                operation ->
                    operation
                        .path("responses")
                        .forEach(
                            response -> {
                              JsonNode code =
                                  response
                                      .path("content")
                                      .path("application/json")
                                      .path("schema")
                                      .path("properties")
                                      .path("error")
                                      .path("properties")
                                      .path("code");
                              if (!code.isMissingNode()) {
                                codes.addAll(enumValues(code));
                              }
                            })));
    Set<String> sdk = new TreeSet<>(known(ErrorCode.class));
    assertEquals(codes, sdk);
  }

  @Test
  void theStatusEnum() {
    assertEquals(
        enumValues(response(TASKS, "post", "201").path("properties").path("status")),
        known(TaskStatus.class));
    for (JsonNode parameter : paths.path(TASKS).path("get").path("parameters")) {
      if (parameter.path("name").asText().equals("status")) {
        assertEquals(enumValues(parameter.path("schema")), known(TaskStatus.class));
      }
    }
  }
}
