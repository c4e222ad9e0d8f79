package dev.delayedtasks.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class DelayedTasksClientTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private StubServer stub;
  private final List<Duration> sleeps = new ArrayList<>();

  @BeforeEach
  void start() throws IOException {
    stub = new StubServer();
  }

  @AfterEach
  void stop() {
    stub.close();
  }

  private DelayedTasksClient client(RetryPolicy policy) {
    return DelayedTasksClient.builder()
        .baseUrl(stub.baseUrl() + "/")
        .apiKey("dts_k1_secret")
        .retryPolicy(policy)
        .sleeper(sleeps::add)
        .build();
  }

  private DelayedTasksClient client() {
    return client(RetryPolicy.noBackoff());
  }

  private static CreateTaskRequest.Builder order() {
    return CreateTaskRequest.builder()
        .taskType("order.close")
        .payload(Map.of("orderId", "10023"))
        .when(When.after(Duration.ofMillis(1500)));
  }

  private static JsonNode body(StubServer.Recorded request) throws IOException {
    return JSON.readTree(request.body());
  }

  @Test
  void createSendsOnlySetFieldsWithGeneratedUuidAndHeaders() throws IOException {
    stub.enqueueJson(201, Fixtures.task("t1", "SCHEDULED"));

    CreateTaskResult result = client().create(order().build());

    assertTrue(result.created());
    StubServer.Recorded request = stub.requests().get(0);
    assertEquals("POST", request.method());
    assertEquals("/api/v1/tasks", request.rawPath());
    assertEquals("Bearer dts_k1_secret", request.headers().get("authorization"));
    assertEquals("application/json", request.headers().get("content-type"));
    assertEquals("delayed-tasks-java/" + Version.VERSION, request.headers().get("user-agent"));
    JsonNode sent = body(request);
    assertEquals(
        List.of("taskType", "payload", "delaySeconds", "taskId"),
        iterableToList(sent.fieldNames()));
    assertEquals(new BigDecimal("1.5"), sent.get("delaySeconds").decimalValue());
    UUID id = UUID.fromString(sent.get("taskId").asText());
    assertEquals(4, id.version());
  }

  @Test
  void createParsesTheTaskWithoutLosingNumbers() {
    stub.enqueueJson(200, Fixtures.task("t1", "SCHEDULED"));

    CreateTaskResult result = client().create(order().taskId("t1").build());

    assertFalse(result.created());
    Task task = result.task();
    assertEquals("t1", task.summary().taskId());
    assertEquals(TaskStatus.SCHEDULED, task.summary().status());
    assertEquals(Instant.parse("2026-12-03T10:30:00Z"), task.summary().executeAt());
    assertEquals(Instant.parse("2026-12-03T10:31:00Z"), task.nextAttemptAt());
    assertNull(task.firedAt());
    assertNull(task.traceId());
    assertEquals(new TaskError("HTTP 503", 503), task.summary().lastError());
    assertEquals("orders", task.summary().owner());
    assertEquals(
        List.of(
            new TaskAttempt(
                1,
                Instant.parse("2026-12-03T10:30:00Z"),
                Instant.parse("2026-12-03T10:30:00.250Z"),
                AttemptOutcome.RETRYABLE_ERROR,
                503,
                "HTTP 503")),
        task.attemptHistory());
    assertEquals(2, task.payloadVersion());
    assertEquals(
        new BigInteger("12345678901234567890"), task.payload().get("big").bigIntegerValue());
    assertEquals(
        new BigDecimal("0.10000000000000000001"), task.payload().get("ratio").decimalValue());
  }

  @Test
  void everyCreateFieldIsSentUnderItsWireName() throws IOException {
    stub.enqueueJson(201, Fixtures.task("o-1", "SCHEDULED"));

    client()
        .create(
            CreateTaskRequest.builder()
                .taskType("order.close")
                .payload(Map.of("a", 1))
                .when(
                    When.at(
                        OffsetDateTime.of(
                            2026, 12, 3, 18, 30, 0, 123_456_789, ZoneOffset.ofHours(8))))
                .callbackUrl("http://127.0.0.1:9/cb")
                .taskId("o-1")
                .maxRetries(5)
                .timeoutMs(1000)
                .payloadVersion(2)
                .traceId("trace-1")
                .priority(1)
                .build());

    JsonNode sent = body(stub.requests().get(0));
    assertEquals(
        JSON.readTree(
            """
            {"taskType":"order.close","payload":{"a":1},"executeAt":"2026-12-03T10:30:00.123Z",
             "callbackUrl":"http://127.0.0.1:9/cb","taskId":"o-1","maxRetries":5,"timeoutMs":1000,
             "payloadVersion":2,"traceId":"trace-1","priority":1}
            """),
        sent);
  }

  @Test
  void delaysAreSecondsWithMillisecondPrecision() throws IOException {
    assertEquals("1800", When.seconds(Duration.ofMinutes(30)).toPlainString());
    assertEquals("0.25", When.seconds(Duration.ofMillis(250)).toPlainString());
    assertEquals("0", When.seconds(Duration.ZERO).toPlainString());
    assertEquals("1.001", When.seconds(Duration.ofNanos(1_001_999_999)).toPlainString());
  }

  @Test
  void retriesUnavailableAndReusesTheGeneratedTaskId() throws IOException {
    stub.enqueueJson(503, "{\"error\":{\"code\":\"UNAVAILABLE\",\"message\":\"down\"}}")
        .enqueueJson(429, "{\"error\":{\"code\":\"RESOURCE_EXHAUSTED\",\"message\":\"slow\"}}")
        .enqueueJson(201, Fixtures.task("x", "SCHEDULED"));

    assertTrue(client().create(order().build()).created());

    List<StubServer.Recorded> requests = stub.requests();
    assertEquals(3, requests.size());
    String first = body(requests.get(0)).get("taskId").asText();
    for (StubServer.Recorded request : requests) {
      assertEquals(first, body(request).get("taskId").asText());
    }
  }

  @Test
  void createTasksRetriesTheWholeRequestWithTheSameGeneratedIds() throws IOException {
    stub.enqueueJson(503, "{\"error\":{\"code\":\"UNAVAILABLE\",\"message\":\"down\"}}")
        .enqueueJson(
            200,
            "{\"results\":[{\"index\":0,\"status\":201,\"task\":"
                + Fixtures.task("x", "SCHEDULED")
                + "}]}");

    List<CreateTasksItem> items = client().createTasks(List.of(order().build()));

    List<StubServer.Recorded> requests = stub.requests();
    assertEquals(2, requests.size());
    assertEquals(body(requests.get(0)), body(requests.get(1)));
    String sent = body(requests.get(0)).path("tasks").get(0).path("taskId").asText();
    assertEquals(4, UUID.fromString(sent).version());
    assertTrue(items.get(0).isSuccess());
    assertTrue(items.get(0).created());
    assertEquals(sent, items.get(0).taskId());
  }

  @Test
  void createTasksGivesAnItemTheAnswerLeftOutAnUnknownError() {
    stub.enqueue(
        new StubServer.Canned(
            200,
            Map.of("content-type", "application/json", "x-request-id", "r-1"),
            ("{\"results\":[{\"index\":1,\"status\":409,"
                    + "\"error\":{\"code\":\"TASK_CONFLICT\",\"message\":\"m\"}}]}")
                .getBytes(java.nio.charset.StandardCharsets.UTF_8)));

    List<CreateTasksItem> items =
        client().createTasks(List.of(order().taskId("a").build(), order().taskId("b").build()));

    assertEquals(ErrorCode.UNKNOWN, items.get(0).error().code());
    assertEquals(200, items.get(0).error().status());
    assertEquals("a", items.get(0).taskId());
    assertEquals(ErrorCode.TASK_CONFLICT, items.get(1).error().code());
    assertEquals(409, items.get(1).error().status());
    assertEquals("r-1", items.get(1).error().requestId());
    assertNull(items.get(1).task());
  }

  @Test
  void givesUpAfterThreeRetriesWithTheLastError() {
    for (int i = 0; i < 4; i++) {
      stub.enqueueJson(503, "{\"error\":{\"code\":\"UNAVAILABLE\",\"message\":\"down\"}}");
    }
    DelayedTaskException e = assertThrows(DelayedTaskException.class, () -> client().status("t1"));
    assertEquals(ErrorCode.UNAVAILABLE, e.code());
    assertEquals(503, e.status());
    assertEquals(4, stub.requests().size());
  }

  @Test
  void neverRetriesOtherErrors() {
    stub.enqueueJson(500, "{\"error\":{\"code\":\"INTERNAL\",\"message\":\"boom\"}}");
    DelayedTaskException e = assertThrows(DelayedTaskException.class, () -> client().status("t1"));
    assertEquals(ErrorCode.INTERNAL, e.code());
    assertEquals(1, stub.requests().size());
  }

  @Test
  void backoffDoublesWithJitterUnderItsCapAndHonoursALongerRetryAfter() {
    RetryPolicy policy =
        new RetryPolicy(3, Duration.ofMillis(250), Duration.ofMillis(400), Duration.ofSeconds(30));
    stub.enqueueJson(503, "{\"error\":{\"code\":\"UNAVAILABLE\",\"message\":\"down\"}}")
        .enqueueJson(503, "{\"error\":{\"code\":\"UNAVAILABLE\",\"message\":\"down\"}}")
        .enqueue(
            new StubServer.Canned(
                429, Map.of("retry-after", "7", "content-type", "application/json"), new byte[0]))
        .enqueueJson(200, Fixtures.task("t1", "SCHEDULED"));

    client(policy).status("t1");

    assertEquals(4, stub.requests().size());
    assertEquals(3, sleeps.size());
    assertTrue(sleeps.get(0).toMillis() <= 250, sleeps.toString());
    assertTrue(sleeps.get(1).toMillis() <= 400, sleeps.toString());
    assertEquals(Duration.ofSeconds(7), sleeps.get(2));
    assertEquals(Duration.ofMillis(400), policy.backoffCeiling(3));
    assertEquals(Duration.ofMillis(500), RetryPolicy.defaults().backoffCeiling(2));
    assertEquals(Duration.ofSeconds(5), RetryPolicy.defaults().backoffCeiling(40));
  }

  @Test
  void retryAfterIsCappedAtThirtySeconds() {
    stub.enqueue(new StubServer.Canned(503, Map.of("retry-after", "3600"), new byte[0]))
        .enqueueJson(200, Fixtures.task("t1", "SCHEDULED"));

    client(RetryPolicy.defaults()).status("t1");

    assertEquals(List.of(Duration.ofSeconds(30)), sleeps);
  }

  /**
   * The server answers something that is not HTTP. (A connection closed before any response byte
   * would be retried once more by the JDK's HttpClient itself, as a stale keep-alive connection.)
   */
  @Test
  void networkFailureEndsAsUnavailableWithStatusZeroAfterFourAttempts() throws Exception {
    AtomicInteger accepted = new AtomicInteger();
    try (ServerSocket socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      acceptEach(
          socket,
          connection -> {
            accepted.incrementAndGet();
            connection.getOutputStream().write("NOT HTTP\r\n\r\n".getBytes());
            connection.close();
          });
      DelayedTasksClient client =
          DelayedTasksClient.builder()
              .baseUrl("http://127.0.0.1:" + socket.getLocalPort())
              .retryPolicy(RetryPolicy.noBackoff())
              .build();

      DelayedTaskException e = assertThrows(DelayedTaskException.class, () -> client.cancel("t1"));

      assertEquals(ErrorCode.UNAVAILABLE, e.code());
      assertEquals(0, e.status());
      assertTrue(e.getCause() instanceof IOException, String.valueOf(e.getCause()));
      assertEquals(4, accepted.get());
    }
  }

  @Test
  void aTimeoutIsRetriedAndEndsAsUnavailable() throws Exception {
    try (ServerSocket socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      List<Socket> open = new ArrayList<>();
      acceptEach(
          socket,
          connection -> {
            synchronized (open) {
              open.add(connection); // never answers
            }
          });
      DelayedTasksClient client =
          DelayedTasksClient.builder()
              .baseUrl("http://127.0.0.1:" + socket.getLocalPort())
              .timeout(Duration.ofMillis(200))
              .retryPolicy(RetryPolicy.noBackoff().withMaxRetries(1))
              .build();

      DelayedTaskException e = assertThrows(DelayedTaskException.class, () -> client.status("t1"));

      assertEquals(ErrorCode.UNAVAILABLE, e.code());
      assertEquals(0, e.status());
      synchronized (open) {
        assertEquals(2, open.size());
        for (Socket s : open) {
          s.close();
        }
      }
    }
  }

  private interface ConnectionAction {
    void accept(Socket connection) throws IOException;
  }

  /** Accepts connections on a background thread until the socket closes. */
  private static void acceptEach(ServerSocket socket, ConnectionAction action) {
    Thread acceptor =
        new Thread(
            () -> {
              while (!socket.isClosed()) {
                try {
                  action.accept(socket.accept());
                } catch (IOException e) {
                  return;
                }
              }
            });
    acceptor.setDaemon(true);
    acceptor.start();
  }

  @Test
  void errorsCarryCodeMessageDetailsStatusAndRequestId() {
    stub.enqueue(
        new StubServer.Canned(
            400,
            Map.of("content-type", "application/json", "x-request-id", "req-42"),
            """
            {"error":{"code":"INVALID_ARGUMENT","message":"bad","details":[{"field":"payload.a","reason":"too deep"}]}}
            """
                .getBytes()));

    DelayedTaskException e = assertThrows(DelayedTaskException.class, () -> client().status("t1"));

    assertEquals(ErrorCode.INVALID_ARGUMENT, e.code());
    assertEquals("INVALID_ARGUMENT", e.rawCode());
    assertEquals("bad", e.getMessage());
    assertEquals(400, e.status());
    assertEquals(List.of(new ErrorDetail("payload.a", "too deep")), e.details());
    assertEquals("req-42", e.requestId());
  }

  @Test
  void anUnknownCodePassesThroughUnchanged() {
    stub.enqueueJson(418, "{\"error\":{\"code\":\"TEAPOT_OVERHEATED\",\"message\":\"hot\"}}");
    DelayedTaskException e = assertThrows(DelayedTaskException.class, () -> client().status("t1"));
    assertEquals(ErrorCode.UNKNOWN, e.code());
    assertEquals("TEAPOT_OVERHEATED", e.rawCode());
    assertEquals(418, e.status());
  }

  @Test
  void aNonJsonErrorBodyIsUnknownWithItsStatus() {
    stub.enqueue(
        new StubServer.Canned(
            502, Map.of("content-type", "text/html"), "<h1>bad gateway</h1>".getBytes()));
    DelayedTaskException e = assertThrows(DelayedTaskException.class, () -> client().status("t1"));
    assertEquals(ErrorCode.UNKNOWN, e.code());
    assertEquals("UNKNOWN", e.rawCode());
    assertEquals(502, e.status());
    assertEquals(1, stub.requests().size());
  }

  @Test
  void taskIdsArePercentEncodedInThePath() {
    stub.enqueueJson(200, Fixtures.task("a b", "CANCELLED"));
    client().cancel("a b/c:d");
    StubServer.Recorded request = stub.requests().get(0);
    assertEquals("/api/v1/tasks/a%20b%2Fc%3Ad/cancel", request.rawPath());
    assertEquals(0, request.body().length);
    assertNull(request.headers().get("content-type"));
  }

  @Test
  void rescheduleAndReplaySendOnlyWhatWasSet() throws IOException {
    stub.enqueueJson(200, Fixtures.task("t1", "SCHEDULED"))
        .enqueueJson(200, Fixtures.task("t1", "SCHEDULED"))
        .enqueueJson(200, Fixtures.task("t1", "SCHEDULED"));

    client().reschedule("t1", When.at(Instant.parse("2026-12-04T00:00:00Z")));
    client().replay("t1");
    client()
        .replay(
            "t1",
            ReplayRequest.builder()
                .payload(Map.of("orderId", "2"))
                .payloadVersion(3)
                .maxRetries(0)
                .when(When.after(Duration.ofSeconds(2)))
                .build());

    List<StubServer.Recorded> requests = stub.requests();
    assertEquals("/api/v1/tasks/t1/reschedule", requests.get(0).rawPath());
    assertEquals(
        JSON.readTree("{\"executeAt\":\"2026-12-04T00:00:00.000Z\"}"), body(requests.get(0)));
    assertEquals("/api/v1/tasks/t1/replay", requests.get(1).rawPath());
    assertEquals(JSON.readTree("{}"), body(requests.get(1)));
    assertEquals(
        JSON.readTree(
            "{\"payload\":{\"orderId\":\"2\"},\"payloadVersion\":3,\"maxRetries\":0,\"delaySeconds\":2}"),
        body(requests.get(2)));
  }

  @Test
  void listAllFollowsNextPageTokenLazily() {
    stub.enqueueJson(200, page(List.of("a", "b"), "tok 1"))
        .enqueueJson(200, page(List.of(), "tok2"))
        .enqueueJson(200, page(List.of("c"), null));

    TaskPager pager =
        client()
            .listAll(
                ListTasksRequest.builder()
                    .status(TaskStatus.FAILED)
                    .taskType("order.close")
                    .pageSize(2)
                    .build());
    assertEquals(0, stub.requests().size());

    List<String> ids = pager.stream().map(TaskSummary::taskId).collect(Collectors.toList());

    assertEquals(List.of("a", "b", "c"), ids);
    List<StubServer.Recorded> requests = stub.requests();
    assertEquals(3, requests.size());
    assertEquals("status=FAILED&taskType=order.close&pageSize=2", requests.get(0).rawQuery());
    assertEquals(
        "status=FAILED&taskType=order.close&pageSize=2&pageToken=tok%201",
        requests.get(1).rawQuery());
    assertEquals(
        "status=FAILED&taskType=order.close&pageSize=2&pageToken=tok2", requests.get(2).rawQuery());
  }

  @Test
  void listReturnsOnePage() {
    stub.enqueueJson(200, page(List.of("a"), "next"));
    TaskPage page = client().list(ListTasksRequest.all());
    assertEquals("next", page.nextPageToken());
    assertEquals(TaskStatus.FAILED, page.tasks().get(0).status());
    assertNull(stub.requests().get(0).rawQuery());
  }

  @Test
  void noApiKeySendsNoAuthorization() {
    stub.enqueueJson(200, Fixtures.task("t1", "SCHEDULED"));
    DelayedTasksClient.builder().baseUrl(stub.baseUrl()).apiKey(" ").build().status("t1");
    assertNull(stub.requests().get(0).headers().get("authorization"));
  }

  @Test
  void theVersionConstantIsTheMavenVersion() {
    String mavenVersion = System.getProperty("sdk.version");
    if (mavenVersion != null) {
      assertEquals(mavenVersion, Version.VERSION);
    }
  }

  private static String page(List<String> ids, String token) {
    String tasks =
        ids.stream()
            .map(
                id ->
                    """
                    {"taskId":"%s","taskType":"order.close","status":"FAILED","executeAt":null,
                     "createdAt":"2026-12-03T10:00:00.000Z","callbackUrl":null,"priority":null,
                     "attempts":4,"lastError":{"message":"HTTP 422","statusCode":422},"completedAt":null}
                    """
                        .formatted(id))
            .collect(Collectors.joining(","));
    return "{\"tasks\":["
        + tasks
        + "],\"nextPageToken\":"
        + (token == null ? "null" : "\"" + token + "\"")
        + "}";
  }

  private static <T> List<T> iterableToList(java.util.Iterator<T> it) {
    List<T> out = new ArrayList<>();
    it.forEachRemaining(out::add);
    return out;
  }
}
