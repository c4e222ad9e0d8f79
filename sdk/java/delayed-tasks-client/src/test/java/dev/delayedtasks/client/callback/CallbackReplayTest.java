package dev.delayedtasks.client.callback;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * From the attacker's side, over loopback HTTP: someone who captured a signed callback sends it
 * again within the tolerance with the unsigned {@code Idempotency-Key} header removed, changed, or
 * set to another task's key. The receiver deduplicates on the signed {@code webhook-id}, so the
 * handler does not run a second time, and another task's genuine callback is never taken for a
 * duplicate.
 */
class CallbackReplayTest {
  private static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
  private static final String OTHER_SECRET = "whsec_c29tZSBvdGhlciBzZXJ2aWNlJ3Mgc2VjcmV0IGtleQ==";
  private static final long NOW = 1764756000L;
  private static final String HANDLED = "200 {\"status\":\"handled\"}";
  private static final String DUPLICATE = "200 {\"status\":\"duplicate\"}";
  private static final String REMOVED = "<removed>";

  private final List<String> ran = new ArrayList<>();

  /** A delivery as captured on the wire. */
  private record Capture(Map<String, String> headers, byte[] body) {
    /** The same bytes with the unsigned header changed ({@link #REMOVED}: dropped). */
    Capture withKey(String key) {
      Map<String, String> copy = new HashMap<>(headers);
      copy.remove("Idempotency-Key");
      if (!key.equals(REMOVED)) {
        copy.put("Idempotency-Key", key);
      }
      return new Capture(copy, body);
    }

    /** The same task and bytes without the signature headers. */
    Capture unsigned() {
      Map<String, String> copy = new HashMap<>(headers);
      copy.keySet().removeIf(name -> name.startsWith("webhook-"));
      return new Capture(copy, body);
    }
  }

  /** A callback as the service signs it: the webhook-id is the task's, the key its task id. */
  private static Capture delivery(String taskId, String messageId, String secret, int attempt) {
    byte[] body =
        ("{\"taskId\":\"%s\",\"taskType\":\"order.close\",\"payload\":{\"orderId\":\"%s\"},"
                + "\"payloadVersion\":1,\"executeAt\":\"2026-12-03T10:00:00.000Z\","
                + "\"attempt\":%d,\"traceId\":null}")
            .formatted(taskId, taskId, attempt)
            .getBytes(StandardCharsets.UTF_8);
    long sentAt = NOW + attempt - 1;
    Map<String, String> headers = new HashMap<>();
    headers.put("Content-Type", "application/json");
    headers.put("Idempotency-Key", taskId);
    headers.put("webhook-id", messageId);
    headers.put("webhook-timestamp", Long.toString(sentAt));
    headers.put("webhook-signature", WebhookVerifier.sign(secret, messageId, sentAt, body));
    return new Capture(headers, body);
  }

  private static final Capture A = delivery("order-a", "msg_a", SECRET, 1);
  private static final Capture B = delivery("order-b", "msg_b", SECRET, 1);

  private CallbackReceiver receiver(boolean signed) {
    CallbackReceiver.Builder builder =
        CallbackReceiver.builder().handler("order.close", cb -> ran.add(cb.taskId()));
    if (!signed) {
      return builder.allowUnsigned(true).build();
    }
    Clock clock = Clock.fixed(Instant.ofEpochSecond(NOW), ZoneOffset.UTC);
    return builder.verifier(WebhookVerifier.builder().secret(SECRET).clock(clock).build()).build();
  }

  /** Sends each delivery over HTTP; the answers as "status body". */
  private List<String> send(CallbackReceiver receiver, Capture... deliveries) throws Exception {
    List<String> answers = new ArrayList<>();
    try (ReceiverVectors.MountedEndpoint endpoint = CallbackHttpHandlerTest.serve(receiver)) {
      for (Capture capture : deliveries) {
        ReceiverResponse answer = endpoint.deliver(capture.headers(), capture.body());
        answers.add(answer.status() + " " + answer.body());
      }
    }
    return answers;
  }

  @ParameterizedTest(name = "Idempotency-Key {0}")
  @ValueSource(strings = {REMOVED, "replayed-1", "order-b"})
  void aReplayWithATamperedIdempotencyKeyDoesNotRunAgain(String key) throws Exception {
    assertEquals(List.of(HANDLED, DUPLICATE), send(receiver(true), A, A.withKey(key)));
    assertEquals(List.of("order-a"), ran);
  }

  @Test
  void theGenuineCallbackRunsAfterAReplayCarryingItsKey() throws Exception {
    Capture retryOfB = delivery("order-b", "msg_b", SECRET, 2);
    assertEquals(
        List.of(HANDLED, DUPLICATE, HANDLED, DUPLICATE),
        send(receiver(true), A, A.withKey("order-b"), B, retryOfB));
    assertEquals(List.of("order-a", "order-b"), ran);
  }

  @Test
  void aForgedCallbackNamingAnotherTasksWebhookIdRecordsNothing() throws Exception {
    Capture forged = delivery("order-b", "msg_b", OTHER_SECRET, 1);
    assertEquals(
        List.of("401 {\"status\":\"refused\",\"reason\":\"no_matching_signature\"}", HANDLED),
        send(receiver(true), forged, B));
    assertEquals(List.of("order-b"), ran);
  }

  @Test
  void anUnsignedReceiverKeysOnTheBodysTaskId() throws Exception {
    assertEquals(
        List.of(HANDLED, DUPLICATE, HANDLED),
        send(
            receiver(false),
            A.unsigned(),
            A.unsigned().withKey("replayed-1"),
            B.unsigned().withKey("order-a")));
    assertEquals(List.of("order-a", "order-b"), ran);
  }

  @Test
  void verifyReturnsTheSignedWebhookId() {
    Clock clock = Clock.fixed(Instant.ofEpochSecond(NOW), ZoneOffset.UTC);
    WebhookVerifier verifier = WebhookVerifier.builder().secret(SECRET).clock(clock).build();
    assertEquals("msg_a", verifier.verify(A.withKey("order-b").headers(), A.body()));
  }
}
