package dev.delayedtasks.client.callback;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WebhookVerifierTest {
  // The example of the Standard Webhooks specification, signed by its reference implementation.
  private static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
  private static final String ID = "msg_p5jXN8AQM9LWM0D4loKWxJek";
  private static final long TIMESTAMP = 1614265330;
  private static final byte[] BODY = "{\"test\": 2432232314}".getBytes(StandardCharsets.UTF_8);
  private static final String SIGNATURE = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";
  private static final String OTHER_SECRET = "whsec_" + "c2Vjb25kLXNlY3JldC1mb3Itcm90YXRpb24=";

  private static WebhookVerifier verifier(long now, String... secrets) {
    return WebhookVerifier.builder()
        .secrets(List.of(secrets))
        .clock(Clock.fixed(Instant.ofEpochSecond(now), ZoneOffset.UTC))
        .build();
  }

  private static Map<String, String> headers(String id, String timestamp, String signature) {
    return Map.of("Webhook-Id", id, "Webhook-Timestamp", timestamp, "WEBHOOK-SIGNATURE", signature);
  }

  private static RejectionReason rejection(Runnable call) {
    return assertThrows(CallbackRejectedException.class, call::run).reason();
  }

  @Test
  void acceptsTheSpecificationsExample() {
    verifier(TIMESTAMP, SECRET).verify(headers(ID, "1614265330", SIGNATURE), BODY);
    assertEquals(SIGNATURE, WebhookVerifier.sign(SECRET, ID, TIMESTAMP, BODY));
  }

  @Test
  void acceptsAnyMatchingEntryAndSecretWhileRotating() {
    String header = "v2,abc v1,AAAA " + SIGNATURE;
    verifier(TIMESTAMP, OTHER_SECRET, SECRET).verify(headers(ID, "1614265330", header), BODY);
  }

  @Test
  void refusesAChangedBodyIdOrTimestamp() {
    WebhookVerifier verifier = verifier(TIMESTAMP, SECRET);
    byte[] changed = "{\"test\": 2432232315}".getBytes(StandardCharsets.UTF_8);
    assertEquals(
        RejectionReason.NO_MATCHING_SIGNATURE,
        rejection(() -> verifier.verify(headers(ID, "1614265330", SIGNATURE), changed)));
    assertEquals(
        RejectionReason.NO_MATCHING_SIGNATURE,
        rejection(() -> verifier.verify(headers("msg_other", "1614265330", SIGNATURE), BODY)));
    assertEquals(
        RejectionReason.NO_MATCHING_SIGNATURE,
        rejection(() -> verifier.verify(headers(ID, "1614265331", SIGNATURE), BODY)));
    assertEquals(
        RejectionReason.NO_MATCHING_SIGNATURE,
        rejection(
            () ->
                verifier(TIMESTAMP, OTHER_SECRET)
                    .verify(headers(ID, "1614265330", SIGNATURE), BODY)));
    String v2Only = "v2," + SIGNATURE.substring(3);
    assertEquals(
        RejectionReason.NO_MATCHING_SIGNATURE,
        rejection(() -> verifier.verify(headers(ID, "1614265330", v2Only), BODY)));
  }

  @Test
  void timestampToleranceBothWaysInclusive() {
    verifier(TIMESTAMP + 300, SECRET).verify(headers(ID, "1614265330", SIGNATURE), BODY);
    verifier(TIMESTAMP - 300, SECRET).verify(headers(ID, "1614265330", SIGNATURE), BODY);
    assertEquals(
        RejectionReason.TIMESTAMP_TOO_OLD,
        rejection(
            () ->
                verifier(TIMESTAMP + 301, SECRET)
                    .verify(headers(ID, "1614265330", SIGNATURE), BODY)));
    assertEquals(
        RejectionReason.TIMESTAMP_TOO_NEW,
        rejection(
            () ->
                verifier(TIMESTAMP - 301, SECRET)
                    .verify(headers(ID, "1614265330", SIGNATURE), BODY)));
  }

  @Test
  void missingHeadersAndBadTimestamps() {
    WebhookVerifier verifier = verifier(TIMESTAMP, SECRET);
    assertEquals(
        RejectionReason.MISSING_HEADER,
        rejection(
            () ->
                verifier.verify(
                    Map.of("webhook-id", ID, "webhook-timestamp", "1614265330"), BODY)));
    assertEquals(RejectionReason.MISSING_HEADER, rejection(() -> verifier.verify(Map.of(), BODY)));
    assertEquals(
        RejectionReason.INVALID_TIMESTAMP,
        rejection(() -> verifier.verify(headers(ID, "soon", SIGNATURE), BODY)));
    assertEquals(
        RejectionReason.INVALID_TIMESTAMP,
        rejection(() -> verifier.verify(headers(ID, "1614265330.5", SIGNATURE), BODY)));
  }

  @Test
  void invalidSecrets() {
    assertEquals(
        RejectionReason.INVALID_SECRET, rejection(() -> verifier(0, "whsec_!!not base64!!")));
    assertEquals(RejectionReason.INVALID_SECRET, rejection(() -> verifier(0, "whsec_")));
    // Bare base64 (accepted by the reference libraries) is refused: the prefix is part of the
    // format.
    assertEquals(
        RejectionReason.INVALID_SECRET,
        rejection(() -> verifier(0, "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")));
    assertEquals(RejectionReason.INVALID_SECRET, rejection(() -> verifier(0)));
    assertEquals("invalid_secret", RejectionReason.INVALID_SECRET.wireName());
  }
}
