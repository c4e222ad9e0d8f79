package dev.delayedtasks.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Executable;
import java.lang.reflect.Modifier;
import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ChecksBeforeSendingTest {
  private static final String NOT_FINITE = "is not a finite number";
  private static final String UNSAFE =
      "is an integer beyond ±(2^53-1); send large ids and amounts as strings";
  private static final String NOT_AN_OBJECT = "must be a JSON object";
  private static final String EXACTLY_ONE = "give exactly one of delaySeconds or executeAt";
  private static final String NEGATIVE = "must not be negative";
  private StubServer stub;
  private DelayedTasksClient client;

  @BeforeEach
  void start() throws IOException {
    stub = new StubServer();
    client =
        DelayedTasksClient.builder()
            .baseUrl(stub.baseUrl())
            .retryPolicy(RetryPolicy.none())
            .build();
  }

  @AfterEach
  void stop() {
    stub.close();
  }

  private void assertRefused(String field, String reason, CreateTaskRequest request) {
    assertRefused(field, reason, () -> client.create(request));
  }

  /** INVALID_ARGUMENT, status 0, the one detail, the message "<field> <reason>", no request. */
  private void assertRefused(
      String field, String reason, org.junit.jupiter.api.function.Executable call) {
    DelayedTaskException e = assertThrows(DelayedTaskException.class, call);
    assertEquals(ErrorCode.INVALID_ARGUMENT, e.code());
    assertEquals(0, e.status());
    assertEquals(List.of(new ErrorDetail(field, reason)), e.details(), e.toString());
    assertEquals(field + " " + reason, e.getMessage());
    assertEquals(List.of(), stub.requests(), "no request may be made");
  }

  private static CreateTaskRequest withPayload(Object payload) {
    return CreateTaskRequest.builder()
        .taskType("t")
        .payload(payload)
        .when(When.after(Duration.ZERO))
        .build();
  }

  @Test
  void nonFiniteNumbersAnywhereInThePayload() {
    assertRefused("payload.a.b", NOT_FINITE, withPayload(Map.of("a", Map.of("b", Double.NaN))));
    Map<String, Object> items = new LinkedHashMap<>();
    items.put("items", List.of(1, 2.5, Double.POSITIVE_INFINITY));
    assertRefused("payload.items.2", NOT_FINITE, withPayload(items));
    assertRefused("payload.f", NOT_FINITE, withPayload(Map.of("f", Float.NEGATIVE_INFINITY)));
  }

  @Test
  void integersBeyondTheSafeRange() {
    assertRefused(
        "payload.id", UNSAFE, withPayload(Map.of("id", new BigInteger("9007199254740993"))));
    assertRefused("payload.id", UNSAFE, withPayload(Map.of("id", -9_007_199_254_740_992L)));
    assertRefused("payload.x.0", UNSAFE, withPayload(Map.of("x", List.of(Long.MAX_VALUE))));
    // A float that large is integral too, and the API would refuse it the same way.
    assertRefused("payload.f", UNSAFE, withPayload(Map.of("f", 1e300)));
    assertRefused(
        "payload.d",
        UNSAFE,
        withPayload(Map.of("d", new java.math.BigDecimal("-9007199254740992.5"))));
  }

  @Test
  void theSafeRangeItselfIsAccepted() {
    stub.enqueueJson(201, Fixtures.task("t", "SCHEDULED"));
    client.create(
        withPayload(Map.of("max", 9_007_199_254_740_991L, "min", -9_007_199_254_740_991L)));
    assertEquals(1, stub.requests().size());
  }

  @Test
  void aCallbackUrlAndADeliveryTogether() {
    assertRefused(
        "delivery",
        "give either callbackUrl or delivery, not both",
        CreateTaskRequest.builder()
            .taskType("t")
            .payload(Map.of())
            .callbackUrl("http://127.0.0.1:9/cb")
            .delivery(Delivery.pull())
            .when(When.after(Duration.ZERO))
            .build());
  }

  @Test
  void payloadMustBeAnObject() {
    assertRefused("payload", NOT_AN_OBJECT, withPayload(List.of(1, 2)));
    assertRefused("payload", NOT_AN_OBJECT, withPayload("text"));
    assertRefused("payload", NOT_AN_OBJECT, withPayload(null));
    assertRefused("payload", NOT_AN_OBJECT, withPayload(42));
  }

  /**
   * A create needs a time; a {@link When} is a delay or a time, so a request never holds both: one
   * set again replaces the other.
   */
  @Test
  void exactlyOneOfDelayAndExecuteAt() {
    assertRefused(
        "delaySeconds",
        EXACTLY_ONE,
        CreateTaskRequest.builder().taskType("t").payload(Map.of()).build());
    CreateTaskRequest twice =
        CreateTaskRequest.builder()
            .taskType("t")
            .payload(Map.of())
            .when(When.after(Duration.ofSeconds(1)))
            .when(When.at(Instant.EPOCH))
            .build();
    assertEquals(When.at(Instant.EPOCH), twice.when());
    assertEquals(null, twice.when().delay());
    assertEquals(
        "{\"taskType\":\"t\",\"payload\":{},\"executeAt\":\"1970-01-01T00:00:00.000Z\",\"taskId\":\"id\"}",
        twice.toBody("id").toString());
  }

  @Test
  void negativeDelays() {
    assertRefused(
        "delaySeconds",
        NEGATIVE,
        CreateTaskRequest.builder()
            .taskType("t")
            .payload(Map.of())
            .when(When.after(Duration.ofMillis(-1)))
            .build());
    assertRefused(
        "delaySeconds", NEGATIVE, () -> client.reschedule("t", When.after(Duration.ofSeconds(-5))));
  }

  @Test
  void replayPayloadIsCheckedToo() {
    Map<String, Object> payload = new HashMap<>();
    payload.put("n", Double.NaN);
    assertRefused(
        "payload.n",
        NOT_FINITE,
        () -> client.replay("t", ReplayRequest.builder().payload(payload).build()));
  }

  /**
   * A time without an offset cannot reach the API: no public method or constructor takes a
   * parameter that a {@link LocalDateTime} could be passed as, except {@code payload(Object)}
   * (where it would be a value inside the JSON object, not a time of the task).
   */
  @Test
  void noPublicMethodAcceptsALocalDateTime() {
    List<String> offenders = new ArrayList<>();
    for (Class<?> type : publicApiClasses()) {
      Stream.concat(Stream.of(type.getMethods()), Stream.of(type.getConstructors()))
          .filter(m -> Modifier.isPublic(m.getModifiers()))
          .filter(m -> m.getDeclaringClass() != Object.class)
          .filter(m -> !m.getName().equals("payload") && !m.getName().equals("equals"))
          .forEach(
              (Executable m) -> {
                for (Class<?> parameter : m.getParameterTypes()) {
                  if (parameter.isAssignableFrom(LocalDateTime.class)) {
                    offenders.add(type.getSimpleName() + "." + m.getName());
                  }
                }
              });
    }
    assertEquals(List.of(), offenders);
    assertTrue(publicApiClasses().size() > 10);
  }

  private static List<Class<?>> publicApiClasses() {
    return List.of(
        DelayedTasksClient.class,
        DelayedTasksClient.Builder.class,
        CreateTaskRequest.class,
        CreateTaskRequest.Builder.class,
        When.class,
        ReplayRequest.class,
        ReplayRequest.Builder.class,
        ListTasksRequest.class,
        ListTasksRequest.Builder.class,
        RetryPolicy.class,
        Task.class,
        TaskSummary.class,
        TaskPager.class,
        DelayedTaskException.class);
  }
}
