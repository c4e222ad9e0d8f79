package dev.delayedtasks.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The task fields a create and a schedule's task share: the same setters, the same wire order. */
class TaskFieldsTest {
  private static final List<String> TASK_FIELDS =
      List.of(
          "taskType",
          "payload",
          "callbackUrl",
          "maxRetries",
          "timeoutMs",
          "payloadVersion",
          "traceId",
          "priority");

  @Test
  void aCreateWritesEveryTaskFieldWithItsTimeAndIdInTheWireOrder() {
    CreateTaskRequest.Builder builder =
        CreateTaskRequest.builder().when(When.after(Duration.ofSeconds(90)));
    setAll(builder);
    JsonNode body = builder.build().toBody("t-1");

    // The schedule's task fields, with the time after the payload and the id after the callback.
    List<String> expected = new ArrayList<>(TASK_FIELDS);
    expected.add(expected.indexOf("payload") + 1, "delaySeconds");
    expected.add(expected.indexOf("callbackUrl") + 1, "taskId");
    assertEquals(expected, names(body));
    assertValues(body);
  }

  @Test
  void aSchedulesTaskWritesTheSameFieldsWithoutTimeOrId() {
    ScheduleTaskRequest.Builder builder = ScheduleTaskRequest.builder();
    setAll(builder);
    JsonNode body = builder.build().toBody();

    assertEquals(TASK_FIELDS, names(body));
    assertValues(body);
  }

  @Test
  void aBuiltRequestKeepsItsFieldsWhenTheBuilderIsUsedAgain() {
    ScheduleTaskRequest.Builder builder =
        ScheduleTaskRequest.builder().taskType("a.b").payload(Map.of("n", 1)).priority(2);
    ScheduleTaskRequest first = builder.build();
    builder.taskType("c.d").priority(5);

    JsonNode body = first.toBody();
    assertEquals("a.b", body.get("taskType").asText());
    assertEquals(2, body.get("priority").asInt());
  }

  private static <B extends TaskFieldsBuilder<B>> void setAll(B builder) {
    builder
        .taskType("order.close")
        .payload(Map.of("orderId", "10023"))
        .callbackUrl("https://orders.internal/callbacks")
        .maxRetries(3)
        .timeoutMs(5000)
        .payloadVersion(2)
        .traceId("trace-1")
        .priority(1);
  }

  private static void assertValues(JsonNode body) {
    assertEquals("order.close", body.get("taskType").asText());
    assertEquals("10023", body.get("payload").get("orderId").asText());
    assertEquals("https://orders.internal/callbacks", body.get("callbackUrl").asText());
    assertEquals(3, body.get("maxRetries").asInt());
    assertEquals(5000, body.get("timeoutMs").asInt());
    assertEquals(2, body.get("payloadVersion").asInt());
    assertEquals("trace-1", body.get("traceId").asText());
    assertEquals(1, body.get("priority").asInt());
  }

  private static List<String> names(JsonNode body) {
    List<String> names = new ArrayList<>();
    body.fieldNames().forEachRemaining(names::add);
    return names;
  }
}
