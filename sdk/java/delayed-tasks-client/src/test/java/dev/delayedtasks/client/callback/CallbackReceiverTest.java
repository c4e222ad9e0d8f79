package dev.delayedtasks.client.callback;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CallbackReceiverTest {
  private static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
  private static final byte[] BODY = CallbackTest.BODY.getBytes(StandardCharsets.UTF_8);

  private final List<Callback> handled = new ArrayList<>();

  private static Map<String, String> signed(byte[] body) {
    long now = Instant.now().getEpochSecond();
    Map<String, String> headers = new HashMap<>();
    headers.put("webhook-id", "msg_1");
    headers.put("webhook-timestamp", Long.toString(now));
    headers.put("webhook-signature", WebhookVerifier.sign(SECRET, "msg_1", now, body));
    headers.put("idempotency-key", "order-1");
    return headers;
  }

  private CallbackReceiver receiver(CallbackHandler handler) {
    return CallbackReceiver.builder()
        .verifier(WebhookVerifier.builder().secret(SECRET).build())
        .handler("order.close", handler)
        .build();
  }

  @Test
  void aSignedCallbackReachesItsHandlerAnd200() {
    ReceiverResponse response = receiver(handled::add).handle(signed(BODY), BODY);
    assertEquals(200, response.status());
    assertEquals(1, handled.size());
    assertEquals("order-1", handled.get(0).taskId());
  }

  @Test
  void aBadSignatureIs401AndTheHandlerDoesNotRun() {
    Map<String, String> headers = signed(BODY);
    headers.put("webhook-signature", "v1,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=");
    ReceiverResponse response = receiver(handled::add).handle(headers, BODY);
    assertEquals(401, response.status());
    assertEquals("{\"status\":\"refused\",\"reason\":\"no_matching_signature\"}", response.body());
    assertEquals("application/json", response.headers().get("Content-Type"));
    assertEquals(List.of(), handled);
  }

  @Test
  void anUnparseableSignedBodyIs400() {
    byte[] body = "{oops".getBytes(StandardCharsets.UTF_8);
    assertEquals(400, receiver(handled::add).handle(signed(body), body).status());
  }

  @Test
  void anUnknownTaskTypeIs422() {
    CallbackReceiver receiver =
        CallbackReceiver.builder()
            .verifier(WebhookVerifier.builder().secret(SECRET).build())
            .handler("other.type", handled::add)
            .build();
    ReceiverResponse response = receiver.handle(signed(BODY), BODY);
    assertEquals(422, response.status());
    assertEquals(
        "{\"status\":\"failed\",\"reason\":\"no handler for task type\"}", response.body());
    assertEquals(List.of(), handled);
  }

  @Test
  void handlerOutcomesMapToStatuses() {
    ReceiverResponse retry =
        receiver(
                c -> {
                  throw new RetryableException("busy", Duration.ofMillis(1500));
                })
            .handle(signed(BODY), BODY);
    assertEquals(503, retry.status());
    assertEquals("2", retry.headers().get("Retry-After"));
    assertEquals("{\"status\":\"retry\"}", retry.body());

    ReceiverResponse retryNoHint =
        receiver(
                c -> {
                  throw new RetryableException("busy");
                })
            .handle(signed(BODY), BODY);
    assertEquals(503, retryNoHint.status());
    assertFalse(retryNoHint.headers().containsKey("Retry-After"));

    ReceiverResponse permanent =
        receiver(
                c -> {
                  throw new PermanentException("order unknown");
                })
            .handle(signed(BODY), BODY);
    assertEquals(422, permanent.status());
    assertEquals("{\"status\":\"failed\"}", permanent.body());

    ReceiverResponse crash =
        receiver(
                c -> {
                  throw new IllegalStateException("bug");
                })
            .handle(signed(BODY), BODY);
    assertEquals(500, crash.status());
    assertEquals("{\"status\":\"error\"}", crash.body(), "internals stay in the log");
  }

  @Test
  void aKeyIsRecordedOnlyAfterSuccessAndRepeatsAreSkipped() {
    int[] calls = {0};
    CallbackReceiver receiver =
        receiver(
            c -> {
              calls[0]++;
              if (calls[0] == 1) {
                throw new RetryableException("first attempt fails");
              }
              handled.add(c);
            });

    assertEquals(503, receiver.handle(signed(BODY), BODY).status());
    assertEquals(200, receiver.handle(signed(BODY), BODY).status());
    ReceiverResponse repeat = receiver.handle(signed(BODY), BODY);

    assertEquals(200, repeat.status());
    assertEquals("{\"status\":\"duplicate\"}", repeat.body());
    assertEquals(2, calls[0]);
    assertEquals(1, handled.size());
  }

  @Test
  void withoutAVerifierTheReceiverIsNotBuilt() {
    CallbackReceiver.Builder builder =
        CallbackReceiver.builder().handler("order.close", handled::add);
    IllegalStateException e = assertThrows(IllegalStateException.class, builder::build);
    assertTrue(e.getMessage().contains("allowUnsigned(true)"), e.getMessage());
  }

  @Test
  void unsignedCallbacksAreHandledOnlyWhenAllowedExplicitly() {
    CallbackReceiver receiver =
        CallbackReceiver.builder().allowUnsigned(true).handler("order.close", handled::add).build();
    assertFalse(receiver.verifiesSignatures());
    ReceiverResponse response = receiver.handle(Map.of(), BODY);
    assertEquals(200, response.status());
    assertEquals("{\"status\":\"handled\"}", response.body());
    assertEquals(1, handled.size());
  }

  @Test
  void allowUnsignedDoesNotWeakenAVerifier() {
    CallbackReceiver receiver =
        CallbackReceiver.builder()
            .verifier(WebhookVerifier.builder().secret(SECRET).build())
            .allowUnsigned(true)
            .handler("order.close", handled::add)
            .build();
    ReceiverResponse response = receiver.handle(Map.of(), BODY);
    assertEquals(401, response.status());
    assertEquals("{\"status\":\"refused\",\"reason\":\"missing_header\"}", response.body());
    assertEquals(List.of(), handled);
  }

  @Test
  void aKeyAnotherReplicaHoldsIs503RetryAfter5AndTheHandlerDoesNotRun() {
    InMemoryIdempotencyStore store = new InMemoryIdempotencyStore();
    Claim other = store.claim("msg_1", Duration.ofMinutes(1)); // another replica runs it now
    CallbackReceiver receiver =
        CallbackReceiver.builder()
            .verifier(WebhookVerifier.builder().secret(SECRET).build())
            .idempotencyStore(store)
            .handler("order.close", handled::add)
            .build();

    ReceiverResponse busy = receiver.handle(signed(BODY), BODY);
    assertEquals(503, busy.status());
    assertEquals("5", busy.headers().get("Retry-After"));
    assertEquals("{\"status\":\"retry\"}", busy.body());
    assertEquals(List.of(), handled);

    store.release("msg_1", other.token()); // that replica's handler failed
    assertEquals("{\"status\":\"handled\"}", receiver.handle(signed(BODY), BODY).body());
    assertEquals(ClaimResult.DONE, store.claim("msg_1", Duration.ofMinutes(1)).result());
  }

  @Test
  void aFailedHandlerReleasesItsClaimSoTheRetryRuns() {
    InMemoryIdempotencyStore store = new InMemoryIdempotencyStore();
    int[] calls = {0};
    CallbackReceiver receiver =
        CallbackReceiver.builder()
            .verifier(WebhookVerifier.builder().secret(SECRET).build())
            .idempotencyStore(store)
            .handler(
                "order.close",
                c -> {
                  if (++calls[0] == 1) {
                    throw new IllegalStateException("crash half-way");
                  }
                })
            .build();
    assertEquals(500, receiver.handle(signed(BODY), BODY).status());
    assertEquals(200, receiver.handle(signed(BODY), BODY).status());
    assertEquals(2, calls[0], "the retry ran: the failed claim was released, not left to expire");
  }
}
