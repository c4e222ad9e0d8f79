package dev.delayedtasks.client.callback;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CallbackTest {
  static final String BODY =
      """
      {"taskId":"order-1","taskType":"order.close",
       "payload":{"orderId":"10023","big":123456789012345678901234567890,"exact":0.1000000000000000000001,"n":7},
       "payloadVersion":2,"executeAt":"2026-12-03T18:30:00.000+08:00","attempt":3,"traceId":null}
      """;

  record Order(String orderId, int n) {}

  @Test
  void parsesEveryFieldAndKeepsNumbersExact() {
    Callback callback = Callback.parse(BODY.getBytes(StandardCharsets.UTF_8));

    assertEquals("order-1", callback.taskId());
    assertEquals("order.close", callback.taskType());
    assertEquals(2, callback.payloadVersion());
    assertEquals(3, callback.attempt());
    assertEquals(Instant.parse("2026-12-03T10:30:00Z"), callback.executeAt());
    assertNull(callback.traceId());
    assertEquals(
        new BigInteger("123456789012345678901234567890"),
        callback.payload().get("big").bigIntegerValue());
    assertEquals(
        new BigDecimal("0.1000000000000000000001"), callback.payload().get("exact").decimalValue());
    assertEquals(new Order("10023", 7), callback.payloadAs(Order.class));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "not json",
        "[1]",
        "{\"taskId\":\"a\"}",
        "{\"taskId\":\"a\",\"taskType\":\"t\",\"payload\":[],\"payloadVersion\":1,\"executeAt\":\"2026-12-03T10:00:00Z\",\"attempt\":1}",
        "{\"taskId\":\"a\",\"taskType\":\"t\",\"payload\":{},\"payloadVersion\":1,\"executeAt\":\"yesterday\",\"attempt\":1}",
        "{\"taskId\":\"a\",\"taskType\":\"t\",\"payload\":{},\"payloadVersion\":1,\"executeAt\":\"2026-12-03T10:00:00\",\"attempt\":1}",
        "{\"taskId\":\"a\",\"taskType\":\"t\",\"payload\":{},\"payloadVersion\":1,\"executeAt\":\"2026-12-03T10:00:00Z\",\"attempt\":\"1\"}"
      })
  void refusesBodiesThatAreNotACallback(String body) {
    CallbackRejectedException e =
        assertThrows(
            CallbackRejectedException.class,
            () -> Callback.parse(body.getBytes(StandardCharsets.UTF_8)));
    assertEquals(RejectionReason.INVALID_BODY, e.reason());
  }
}
