package dev.delayedtasks.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.delayedtasks.client.callback.Callback;
import dev.delayedtasks.client.callback.CallbackRejectedException;
import dev.delayedtasks.client.callback.ReceiverVectors;
import dev.delayedtasks.client.callback.WebhookVerifier;
import dev.delayedtasks.client.internal.Json;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Runs the shared, language-neutral vectors of {@code conformance/} (at the repository root): every
 * file of {@code client/} against a loopback {@link StubServer} with zero backoff, every file of
 * {@code callbacks/} through {@link WebhookVerifier} and {@link Callback#parse}, except {@code
 * receiver.json}, which goes to a whole {@code CallbackReceiver} ({@link ReceiverVectors}).
 */
class ConformanceTest {
  private static final Set<String> OPERATIONS =
      Set.of(
          "create", "createTasks", "status", "cancel", "list", "listAll", "reschedule", "replay");

  private static Path root() {
    return Path.of(System.getProperty("conformance.dir", "../../../conformance")).normalize();
  }

  @TestFactory
  Stream<DynamicNode> clientVectors() throws IOException {
    return files("client", file -> ConformanceTest::clientCase);
  }

  /** {@code receiver.json}: the whole endpoint; the other files: verify then parse. */
  @TestFactory
  Stream<DynamicNode> callbackVectors() throws IOException {
    return files(
        "callbacks",
        file ->
            file.getFileName().toString().equals("receiver.json")
                ? testCase -> ReceiverVectors.run(testCase, ReceiverVectors.DIRECT)
                : ConformanceTest::callbackCase);
  }

  // ---- loading ----

  private interface CaseRunner {
    void run(JsonNode testCase) throws Exception;
  }

  /** One container per file; missing vectors are one skipped test (a failed one under CI). */
  private static Stream<DynamicNode> files(String kind, Function<Path, CaseRunner> runnerFor)
      throws IOException {
    Path dir = root().resolve(kind);
    if (!Files.isDirectory(dir)) {
      return Stream.of(
          DynamicTest.dynamicTest(
              kind + " vectors",
              () -> {
                String message = "no conformance vectors at " + dir.toAbsolutePath();
                if ("true".equals(System.getenv("CI"))) {
                  fail(message);
                }
                Assumptions.abort(message);
              }));
    }
    try (Stream<Path> listing = Files.list(dir)) {
      List<Path> found = listing.filter(p -> p.toString().endsWith(".json")).sorted().toList();
      assertTrue(!found.isEmpty(), "no vector files in " + dir);
      return found.stream().map(file -> container(file, runnerFor.apply(file)));
    }
  }

  private static DynamicNode container(Path file, CaseRunner runner) {
    JsonNode cases;
    try {
      cases = Json.parse(Files.readAllBytes(file));
    } catch (IOException e) {
      return DynamicTest.dynamicTest(file.getFileName() + " (unreadable)", () -> fail(e));
    }
    List<DynamicNode> tests = new ArrayList<>();
    for (JsonNode testCase : cases) {
      tests.add(
          DynamicTest.dynamicTest(
              testCase.path("name").asText("(unnamed)"), () -> runner.run(testCase)));
    }
    return DynamicContainer.dynamicContainer(file.getFileName().toString(), tests);
  }

  // ---- client vectors ----

  private static void clientCase(JsonNode testCase) throws Exception {
    String operation = testCase.path("operation").asText();
    assertTrue(
        OPERATIONS.contains(operation) || ScheduleVectors.OPERATIONS.contains(operation),
        "unknown operation " + operation);
    JsonNode input = testCase.path("input");
    if (usesLocalTime(input) || unrepresentable(operation, input)) {
      compileTimeOnly();
      Assumptions.abort(
          "compile-time: the Java API cannot express this call (times are Instant/OffsetDateTime"
              + " only; a When is a delay or a time, never both, and a reschedule takes one)");
    }
    if (nonFiniteDuration(input)) {
      Assumptions.abort("not representable: a java.time.Duration cannot be NaN or infinite");
    }
    try (StubServer stub = new StubServer()) {
      for (JsonNode response : testCase.path("responses")) {
        stub.enqueue(canned(response));
      }
      DelayedTasksClient client = client(stub, testCase.path("options"));
      JsonNode expect = testCase.path("expect");
      Object result = null;
      DelayedTaskException error = null;
      long started = System.nanoTime();
      try {
        result = invoke(client, operation, input);
      } catch (DelayedTaskException e) {
        error = e;
      }
      long elapsedMs = (System.nanoTime() - started) / 1_000_000;
      if (expect.has("minElapsedMs")) {
        assertTrue(
            elapsedMs >= expect.get("minElapsedMs").asLong(),
            "took " + elapsedMs + " ms, less than " + expect.get("minElapsedMs"));
      }
      if (expect.has("maxElapsedMs")) {
        assertTrue(
            elapsedMs <= expect.get("maxElapsedMs").asLong(),
            "took " + elapsedMs + " ms, more than " + expect.get("maxElapsedMs"));
      }
      checkRequests(testCase.path("requests"), stub.requests());
      if (expect.has("error")) {
        if (error == null) {
          fail("expected an error, got " + result);
        }
        checkError(expect.get("error"), error);
      } else {
        if (error != null) {
          throw new AssertionError("unexpected error " + error, error);
        }
        if (expect.has("result") && expect.get("result").isNull()) {
          ScheduleVectors.assertNullResult(expect.get("result"), result);
        } else if (expect.has("result")) {
          assertSubset(expect.get("result"), Results.toJson(result), "result");
        }
      }
    }
  }

  /**
   * A time without an offset: the Java API takes only Instant and OffsetDateTime, so such a call
   * does not compile. The case passes by checking that no public method accepts a LocalDateTime.
   */
  private static void compileTimeOnly() {
    new ChecksBeforeSendingTest().noPublicMethodAcceptsALocalDateTime();
  }

  private static boolean usesLocalTime(JsonNode node) {
    if (node.isObject()) {
      if (node.has("$localtime")) {
        return true;
      }
      for (JsonNode child : node) {
        if (usesLocalTime(child)) {
          return true;
        }
      }
    }
    if (node.isArray()) {
      for (JsonNode child : node) {
        if (usesLocalTime(child)) {
          return true;
        }
      }
    }
    // An executeAt string without an offset is the same case.
    JsonNode executeAt = node.isObject() ? node.get("executeAt") : null;
    if (executeAt != null && executeAt.isTextual()) {
      try {
        OffsetDateTime.parse(executeAt.asText());
      } catch (DateTimeParseException e) {
        return true;
      }
    }
    return false;
  }

  /** {@code {"$duration": {"$float": "NaN"}}}: no Duration holds it (like Go's time.Duration). */
  private static boolean nonFiniteDuration(JsonNode node) {
    if (node.isObject() && node.has("$duration")) {
      return node.get("$duration").isObject();
    }
    for (JsonNode child : node) {
      if (nonFiniteDuration(child)) {
        return true;
      }
    }
    return false;
  }

  /**
   * A {@link When} is a delay or a time: both cannot be expressed (a create, a batch item, a
   * replay, a reschedule), nor neither where it is a parameter (a reschedule).
   */
  private static boolean unrepresentable(String operation, JsonNode input) {
    boolean both = input.has("delaySeconds") && input.has("executeAt");
    boolean neither = !input.has("delaySeconds") && !input.has("executeAt");
    boolean bothInABatch = false;
    for (JsonNode item : input.path("tasks")) {
      bothInABatch |= item.has("delaySeconds") && item.has("executeAt");
    }
    return both || bothInABatch || (operation.equals("reschedule") && neither);
  }

  private static StubServer.Canned canned(JsonNode response) {
    Map<String, String> headers = new HashMap<>();
    response
        .path("headers")
        .properties()
        .forEach(e -> headers.put(e.getKey(), e.getValue().asText()));
    JsonNode body = response.get("body");
    byte[] bytes;
    if (response.has("bodyText")) {
      bytes = response.get("bodyText").asText().getBytes(StandardCharsets.UTF_8);
    } else if (body == null || body.isNull()) {
      bytes = new byte[0];
    } else if (body.isTextual()) {
      bytes = body.asText().getBytes(StandardCharsets.UTF_8);
    } else {
      bytes = Json.write(body);
      headers.putIfAbsent("content-type", "application/json");
    }
    return new StubServer.Canned(response.path("status").asInt(200), headers, bytes);
  }

  private static DelayedTasksClient client(StubServer stub, JsonNode options) {
    RetryPolicy zeroBackoff =
        new RetryPolicy(3, Duration.ZERO, Duration.ZERO, RetryPolicy.defaults().maxRetryAfter());
    DelayedTasksClient.Builder builder =
        DelayedTasksClient.builder()
            .baseUrl(stub.baseUrl())
            .timeout(Duration.ofSeconds(5))
            .retryPolicy(zeroBackoff);
    for (Map.Entry<String, JsonNode> option : options.properties()) {
      JsonNode value = option.getValue();
      switch (option.getKey()) {
        case "apiKey" -> builder.apiKey(value.asText());
        case "maxRetries" -> builder.retryPolicy(zeroBackoff.withMaxRetries(value.asInt()));
        default -> fail("unknown client option " + option.getKey());
      }
    }
    return builder.build();
  }

  private static Object invoke(DelayedTasksClient client, String operation, JsonNode input) {
    if (ScheduleVectors.OPERATIONS.contains(operation)) {
      return ScheduleVectors.invoke(client, operation, input);
    }
    Set<String> known =
        switch (operation) {
          case "create" ->
              Set.of(
                  "taskType",
                  "payload",
                  "delaySeconds",
                  "executeAt",
                  "callbackUrl",
                  "taskId",
                  "maxRetries",
                  "timeoutMs",
                  "payloadVersion",
                  "traceId",
                  "priority");
          case "createTasks" -> Set.of("tasks");
          case "status", "cancel" -> Set.of("taskId");
          case "list", "listAll" ->
              Set.of(
                  "status",
                  "taskType",
                  "idPrefix",
                  "owner",
                  "dueAfter",
                  "dueBefore",
                  "pageSize",
                  "pageToken");
          case "reschedule" -> Set.of("taskId", "delaySeconds", "executeAt");
          case "replay" ->
              Set.of(
                  "taskId", "payload", "payloadVersion", "maxRetries", "delaySeconds", "executeAt");
          default -> Set.of();
        };
    input.fieldNames().forEachRemaining(f -> assertTrue(known.contains(f), "unknown input " + f));
    return switch (operation) {
      case "create" -> client.create(createRequest(input));
      case "createTasks" -> {
        List<CreateTaskRequest> requests = new ArrayList<>();
        input.path("tasks").forEach(item -> requests.add(createRequest(item)));
        yield new Batch(client.createTasks(requests));
      }
      case "status" -> client.status(input.path("taskId").asText());
      case "cancel" -> client.cancel(input.path("taskId").asText());
      case "list" -> client.list(listRequest(input));
      case "listAll" -> new Drained(client.listAll(listRequest(input)).stream().toList());
      case "reschedule" -> client.reschedule(input.path("taskId").asText(), when(input));
      case "replay" -> client.replay(input.path("taskId").asText(), replayRequest(input));
      default -> throw new AssertionError(operation);
    };
  }

  private static CreateTaskRequest createRequest(JsonNode input) {
    CreateTaskRequest.Builder b = CreateTaskRequest.builder();
    if (input.has("taskType")) {
      b.taskType(input.get("taskType").asText());
    }
    if (input.has("payload")) {
      b.payload(value(input.get("payload")));
    }
    if (when(input) != null) {
      b.when(when(input));
    }
    if (input.has("callbackUrl")) {
      b.callbackUrl(input.get("callbackUrl").asText());
    }
    if (input.has("taskId")) {
      b.taskId(input.get("taskId").asText());
    }
    if (input.has("maxRetries")) {
      b.maxRetries(input.get("maxRetries").asInt());
    }
    if (input.has("timeoutMs")) {
      b.timeoutMs(input.get("timeoutMs").asInt());
    }
    if (input.has("payloadVersion")) {
      b.payloadVersion(input.get("payloadVersion").asInt());
    }
    if (input.has("traceId")) {
      b.traceId(input.get("traceId").asText());
    }
    if (input.has("priority")) {
      b.priority(input.get("priority").asInt());
    }
    return b.build();
  }

  private static ReplayRequest replayRequest(JsonNode input) {
    ReplayRequest.Builder b = ReplayRequest.builder();
    if (input.has("payload")) {
      b.payload(value(input.get("payload")));
    }
    if (input.has("payloadVersion")) {
      b.payloadVersion(input.get("payloadVersion").asInt());
    }
    if (input.has("maxRetries")) {
      b.maxRetries(input.get("maxRetries").asInt());
    }
    if (when(input) != null) {
      b.when(when(input));
    }
    return b.build();
  }

  private static ListTasksRequest listRequest(JsonNode input) {
    ListTasksRequest.Builder b = ListTasksRequest.builder();
    if (input.has("status")) {
      b.status(TaskStatus.valueOf(input.get("status").asText()));
    }
    if (input.has("taskType")) {
      b.taskType(input.get("taskType").asText());
    }
    if (input.has("idPrefix")) {
      b.idPrefix(input.get("idPrefix").asText());
    }
    if (input.has("owner")) {
      b.owner(input.get("owner").asText());
    }
    if (input.has("dueAfter")) {
      b.dueAfter(time(input.get("dueAfter")));
    }
    if (input.has("dueBefore")) {
      b.dueBefore(time(input.get("dueBefore")));
    }
    if (input.has("pageSize")) {
      b.pageSize(input.get("pageSize").asInt());
    }
    if (input.has("pageToken")) {
      b.pageToken(input.get("pageToken").asText());
    }
    return b.build();
  }

  /** {@code {"$duration": 1.5}} or a plain number of seconds. */
  /** The input's delay or time, or null for neither (both are skipped as unrepresentable). */
  private static When when(JsonNode input) {
    if (input.has("delaySeconds")) {
      return When.after(duration(input.get("delaySeconds")));
    }
    return input.has("executeAt") ? When.at(time(input.get("executeAt"))) : null;
  }

  private static Duration duration(JsonNode node) {
    JsonNode seconds = node.isObject() ? node.get("$duration") : node;
    BigDecimal value = seconds.decimalValue();
    return Duration.ofNanos(value.movePointRight(9).longValue());
  }

  /** {@code {"$time": "..."}} or a plain RFC 3339 string with an offset. */
  private static OffsetDateTime time(JsonNode node) {
    JsonNode text = node.isObject() ? node.get("$time") : node;
    return OffsetDateTime.parse(text.asText());
  }

  /** A tagged JSON value as the Java value a caller would pass. */
  static Object value(JsonNode node) {
    if (node.isObject()) {
      if (node.size() == 1 && node.has("$float")) {
        return Double.valueOf(node.get("$float").asText());
      }
      if (node.size() == 1 && node.has("$int")) {
        return new BigInteger(node.get("$int").asText());
      }
      if (node.size() == 1 && node.has("$time")) {
        return OffsetDateTime.parse(node.get("$time").asText());
      }
      if (node.size() == 1 && node.has("$localtime")) {
        return LocalDateTime.parse(node.get("$localtime").asText());
      }
      if (node.size() == 1 && node.has("$duration")) {
        return duration(node);
      }
      Map<String, Object> map = new LinkedHashMap<>();
      node.properties().forEach(e -> map.put(e.getKey(), value(e.getValue())));
      return map;
    }
    if (node.isArray()) {
      List<Object> list = new ArrayList<>();
      node.forEach(child -> list.add(value(child)));
      return list;
    }
    if (node.isIntegralNumber()) {
      return node.canConvertToLong() ? (Object) node.longValue() : node.bigIntegerValue();
    }
    if (node.isNumber()) {
      return node.decimalValue();
    }
    if (node.isNull()) {
      return null;
    }
    return node.isBoolean() ? node.booleanValue() : node.asText();
  }

  private static void checkRequests(JsonNode expected, List<StubServer.Recorded> actual) {
    assertEquals(expected.size(), actual.size(), "number of HTTP requests: " + describe(actual));
    Map<String, String> uuids = new HashMap<>();
    for (int i = 0; i < expected.size(); i++) {
      JsonNode want = expected.get(i);
      StubServer.Recorded got = actual.get(i);
      String where = "request " + i;
      assertEquals(want.path("method").asText(), got.method(), where + " method");
      String wantPath = want.path("path").asText();
      assertEquals(wantPath, got.rawPath(), where + " raw path");
      if (want.has("query")) {
        Map<String, String> wantQuery = new TreeMap<>();
        want.get("query")
            .properties()
            .forEach(e -> wantQuery.put(e.getKey(), e.getValue().asText()));
        assertEquals(wantQuery, query(got.rawQuery()), where + " query");
      }
      want.path("headers")
          .properties()
          .forEach(
              e -> {
                String header = got.headers().get(e.getKey().toLowerCase(java.util.Locale.ROOT));
                JsonNode value = e.getValue();
                if (value.isObject() && "userAgent".equals(value.path("$match").asText())) {
                  assertTrue(
                      header != null && header.matches("delayed-tasks-java/[^\\s]+"),
                      where + " user agent: " + header);
                } else {
                  assertEquals(
                      value.isNull() ? null : value.asText(),
                      header,
                      where + " header " + e.getKey());
                }
              });
      {
        JsonNode wantBody = want.path("body");
        if (wantBody.isNull() || wantBody.isMissingNode()) {
          assertEquals(0, got.body().length, where + " must have no body");
        } else {
          JsonNode gotBody;
          try {
            gotBody = Json.parse(got.body());
          } catch (IOException e) {
            throw new AssertionError(where + " body is not JSON: " + got.bodyText(), e);
          }
          assertJsonEquals(wantBody, gotBody, where + " body", uuids);
        }
      }
    }
  }

  private static String describe(List<StubServer.Recorded> requests) {
    return requests.stream()
        .map(r -> r.method() + " " + r.rawPath() + " " + r.bodyText())
        .toList()
        .toString();
  }

  private static String decode(String raw) {
    return URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8);
  }

  private static Map<String, String> query(String raw) {
    Map<String, String> out = new TreeMap<>();
    if (raw == null || raw.isEmpty()) {
      return out;
    }
    for (String pair : raw.split("&")) {
      int eq = pair.indexOf('=');
      String key = eq < 0 ? pair : pair.substring(0, eq);
      String value = eq < 0 ? "" : pair.substring(eq + 1);
      out.put(decode(key), decode(value));
    }
    return out;
  }

  /** Exact JSON equality; numbers by value; {@code {"$match":"uuid"}} any UUID v4, one per case. */
  private static void assertJsonEquals(
      JsonNode want, JsonNode got, String where, Map<String, String> uuids) {
    if (want.isObject() && want.size() == 1 && want.has("$match")) {
      assertEquals("uuid", want.get("$match").asText(), where + ": unknown matcher");
      assertTrue(
          got.isTextual()
              && got.asText()
                  .matches("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"),
          where + ": not a UUID v4: " + got);
      String first = uuids.putIfAbsent("uuid", got.asText());
      if (first != null) {
        assertEquals(first, got.asText(), where + ": the same UUID in every request of the case");
      }
      return;
    }
    if (want.isNumber()) {
      assertTrue(
          got.isNumber() && want.decimalValue().compareTo(got.decimalValue()) == 0,
          where + ": want " + want + ", got " + got);
      return;
    }
    if (want.isObject()) {
      assertTrue(got.isObject(), where + ": want an object, got " + got);
      List<String> wantKeys = new ArrayList<>();
      want.fieldNames().forEachRemaining(wantKeys::add);
      List<String> gotKeys = new ArrayList<>();
      got.fieldNames().forEachRemaining(gotKeys::add);
      assertEquals(Set.copyOf(wantKeys), Set.copyOf(gotKeys), where + ": fields");
      for (String key : wantKeys) {
        assertJsonEquals(want.get(key), got.get(key), where + "." + key, uuids);
      }
      return;
    }
    if (want.isArray()) {
      assertTrue(
          got.isArray() && got.size() == want.size(), where + ": want " + want + ", got " + got);
      for (int i = 0; i < want.size(); i++) {
        assertJsonEquals(want.get(i), got.get(i), where + "." + i, uuids);
      }
      return;
    }
    assertEquals(want, got, where);
  }

  /** Every item of a drained {@code listAll}. */
  private record Drained(List<TaskSummary> tasks) {}

  /** The items of {@code createTasks}, compared as the vectors' array. */
  private record Batch(List<CreateTasksItem> items) {}

  /** The fields {@code want} lists, compared by value; times as instants. */
  static void assertSubset(JsonNode want, JsonNode got, String where) {
    if (want.isObject() && want.size() == 1 && want.has("$int")) {
      assertTrue(
          got != null
              && got.isIntegralNumber()
              && got.bigIntegerValue().equals(new BigInteger(want.get("$int").asText())),
          where + ": want the exact integer " + want.get("$int").asText() + ", got " + got);
      return;
    }
    if (want.isObject()) {
      assertTrue(got != null && got.isObject(), where + ": want an object, got " + got);
      want.properties()
          .forEach(e -> assertSubset(e.getValue(), got.get(e.getKey()), where + "." + e.getKey()));
      return;
    }
    if (want.isArray()) {
      assertTrue(
          got != null && got.isArray() && got.size() == want.size(),
          where + ": want " + want + ", got " + got);
      for (int i = 0; i < want.size(); i++) {
        assertSubset(want.get(i), got.get(i), where + "." + i);
      }
      return;
    }
    if (want.isNumber()) {
      assertTrue(
          got != null && got.isNumber() && want.decimalValue().compareTo(got.decimalValue()) == 0,
          where + ": want " + want + ", got " + got);
      return;
    }
    if (want.isTextual() && got != null && got.isTextual()) {
      Instant wantTime = instantOrNull(want.asText());
      if (wantTime != null) {
        assertEquals(wantTime, instantOrNull(got.asText()), where);
        return;
      }
    }
    assertEquals(want, got == null ? JsonNodeFactory.instance.missingNode() : got, where);
  }

  private static Instant instantOrNull(String text) {
    try {
      return OffsetDateTime.parse(text).toInstant();
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  private static void checkError(JsonNode want, DelayedTaskException got) {
    if (want.has("code")) {
      assertEquals(want.get("code").asText(), got.rawCode(), "error code of " + got);
    }
    if (want.has("status")) {
      int status = want.get("status").isNull() ? 0 : want.get("status").asInt();
      assertEquals(status, got.status(), "error status of " + got);
    }
    if (want.has("details")) {
      JsonNode details = want.get("details");
      assertEquals(details.size(), got.details().size(), "details of " + got);
      for (int i = 0; i < details.size(); i++) {
        JsonNode detail = details.get(i);
        ErrorDetail actual = got.details().get(i);
        if (detail.has("field")) {
          assertEquals(detail.get("field").asText(), actual.field(), "detail " + i + " field");
        }
        if (detail.has("reason")) {
          assertEquals(detail.get("reason").asText(), actual.reason(), "detail " + i + " reason");
        }
      }
      if (got.status() == 0 && !got.details().isEmpty()) {
        ErrorDetail first = got.details().get(0);
        assertEquals(first.field() + " " + first.reason(), got.getMessage(), "message");
      }
    }
    if (want.has("requestId")) {
      assertEquals(want.get("requestId").asText(), got.requestId(), "request id");
    }
  }

  // ---- callback vectors ----

  private static void callbackCase(JsonNode testCase) {
    JsonNode expect = testCase.path("expect");
    Map<String, String> headers = new HashMap<>();
    testCase
        .path("headers")
        .properties()
        .forEach(e -> headers.put(e.getKey(), e.getValue().asText()));
    byte[] body = testCase.path("body").asText().getBytes(StandardCharsets.UTF_8);
    Callback callback;
    try {
      List<String> secrets = new ArrayList<>();
      testCase.path("secrets").forEach(s -> secrets.add(s.asText()));
      WebhookVerifier.Builder builder =
          WebhookVerifier.builder()
              .secrets(secrets)
              .clock(
                  Clock.fixed(
                      Instant.ofEpochSecond(testCase.path("now").asLong()), ZoneOffset.UTC));
      if (testCase.has("toleranceSeconds")) {
        builder.tolerance(Duration.ofSeconds(testCase.get("toleranceSeconds").asLong()));
      }
      callback = builder.build().verifyAndParse(headers, body);
    } catch (CallbackRejectedException e) {
      if (!expect.has("error")) {
        throw new AssertionError("unexpected rejection " + e.getMessage(), e);
      }
      assertEquals(expect.get("error").asText(), e.reason().wireName(), e.getMessage());
      return;
    }
    if (expect.has("error")) {
      fail("expected rejection " + expect.get("error").asText() + ", got " + callback);
    }
    assertSubset(expect.path("callback"), Results.toJson(callback), "callback");
  }

  /** Results as JSON trees with the wire names, for comparison with the vectors. */
  static final class Results {
    private Results() {}

    static JsonNode toJson(Object result) {
      if (ScheduleVectors.handles(result)) {
        return ScheduleVectors.toJson(result);
      }
      if (result instanceof CreateTaskResult r) {
        ObjectNode node = (ObjectNode) task(r.task());
        ObjectNode out = JsonNodeFactory.instance.objectNode();
        out.put("created", r.created());
        out.set("task", node);
        // Also flat, so a vector may list task fields next to "created".
        node.properties().forEach(e -> out.set(e.getKey(), e.getValue()));
        out.put("created", r.created());
        return out;
      }
      if (result instanceof Task t) {
        return task(t);
      }
      if (result instanceof Batch batch) {
        ArrayNode out = JsonNodeFactory.instance.arrayNode();
        for (CreateTasksItem item : batch.items()) {
          ObjectNode node = out.addObject();
          node.put("index", item.index());
          node.put("taskId", item.taskId());
          if (item.isSuccess()) {
            node.put("created", item.created());
            node.set("task", task(item.task()));
          } else {
            DelayedTaskException e = item.error();
            ObjectNode error = node.putObject("error");
            error.put("code", e.rawCode());
            error.put("status", e.status());
            ArrayNode details = error.putArray("details");
            e.details()
                .forEach(
                    d -> details.addObject().put("field", d.field()).put("reason", d.reason()));
            error.put("requestId", e.requestId());
          }
        }
        return out;
      }
      if (result instanceof TaskPage p) {
        ObjectNode out = JsonNodeFactory.instance.objectNode();
        ArrayNode tasks = out.putArray("tasks");
        p.tasks().forEach(s -> tasks.add(summary(s)));
        out.put("nextPageToken", p.nextPageToken());
        return out;
      }
      if (result instanceof Drained drained) {
        ObjectNode out = JsonNodeFactory.instance.objectNode();
        ArrayNode tasks = out.putArray("tasks");
        drained.tasks().forEach(s -> tasks.add(summary(s)));
        return out;
      }
      if (result instanceof Callback c) {
        ObjectNode out = JsonNodeFactory.instance.objectNode();
        out.put("taskId", c.taskId());
        out.put("taskType", c.taskType());
        out.set("payload", c.payload());
        out.put("payloadVersion", c.payloadVersion());
        out.put("executeAt", Json.formatTime(c.executeAt()));
        out.put("attempt", c.attempt());
        out.put("traceId", c.traceId());
        if (c.schedule() == null) {
          out.putNull("schedule");
        } else {
          out.putObject("schedule")
              .put("scheduleId", c.schedule().scheduleId())
              .put("scheduledAt", Json.formatTime(c.schedule().scheduledAt()));
        }
        return out;
      }
      throw new AssertionError("no JSON form for " + result);
    }

    /** A task: its summary's fields and the details. */
    private static JsonNode task(Task t) {
      ObjectNode out = summary(t.summary());
      out.set("payload", t.payload());
      out.put("payloadVersion", t.payloadVersion());
      out.put("maxRetries", t.maxRetries());
      out.put("timeoutMs", t.timeoutMs());
      out.put("traceId", t.traceId());
      time(out, "nextAttemptAt", t.nextAttemptAt());
      time(out, "firedAt", t.firedAt());
      ArrayNode attempts = out.putArray("attemptHistory");
      for (TaskAttempt attempt : t.attemptHistory()) {
        ObjectNode node = attempts.addObject().put("attempt", attempt.attempt());
        time(node, "startedAt", attempt.startedAt());
        time(node, "finishedAt", attempt.finishedAt());
        node.put("outcome", attempt.outcome().name());
        node.put("statusCode", attempt.statusCode());
        node.put("error", attempt.error());
      }
      return out;
    }

    private static ObjectNode summary(TaskSummary s) {
      ObjectNode out = JsonNodeFactory.instance.objectNode();
      out.put("taskId", s.taskId());
      out.put("owner", s.owner());
      out.put("taskType", s.taskType());
      out.put("status", s.status().name());
      time(out, "executeAt", s.executeAt());
      time(out, "createdAt", s.createdAt());
      out.put("callbackUrl", s.callbackUrl());
      out.put("priority", s.priority());
      out.put("attempts", s.attempts());
      error(out, s.lastError());
      time(out, "completedAt", s.completedAt());
      return out;
    }

    private static void time(ObjectNode out, String field, Instant value) {
      out.put(field, value == null ? null : Json.formatTime(value));
    }

    private static void error(ObjectNode out, TaskError error) {
      if (error == null) {
        out.putNull("lastError");
      } else {
        out.putObject("lastError")
            .put("message", error.message())
            .put("statusCode", error.statusCode());
      }
    }
  }
}
