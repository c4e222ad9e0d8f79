package dev.delayedtasks.client.callback;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayedtasks.client.internal.Json;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs one case of {@code conformance/callbacks/receiver.json}: builds the receiver the case
 * describes, sends it every delivery through an {@link Endpoint} (the receiver itself, or a real
 * HTTP server in front of it) and compares status, body, headers and handler calls.
 */
public final class ReceiverVectors {
  /** One delivery in, one answer out; names of the answer's headers in any case. */
  @FunctionalInterface
  public interface Endpoint {
    ReceiverResponse deliver(Map<String, String> headers, byte[] body) throws Exception;
  }

  /** Puts a built receiver behind an endpoint; closed after the case. */
  @FunctionalInterface
  public interface Mount {
    MountedEndpoint mount(CallbackReceiver receiver) throws Exception;
  }

  /** An endpoint that may hold a resource (a server) to release. */
  public interface MountedEndpoint extends Endpoint, AutoCloseable {
    @Override
    void close();
  }

  /** The receiver itself, no transport. */
  public static final Mount DIRECT =
      receiver ->
          new MountedEndpoint() {
            @Override
            public ReceiverResponse deliver(Map<String, String> headers, byte[] body) {
              return receiver.handle(headers, body);
            }

            @Override
            public void close() {}
          };

  private ReceiverVectors() {}

  public static void run(JsonNode testCase, Mount mount) throws Exception {
    AtomicInteger calls = new AtomicInteger();
    CallbackReceiver.Builder builder = builder(testCase.path("receiver"), calls);
    if (testCase.path("expect").path("refusedToBuild").asBoolean(false)) {
      assertThrows(IllegalStateException.class, builder::build);
      return;
    }
    int index = 0;
    try (MountedEndpoint endpoint = mount.mount(builder.build())) {
      for (JsonNode delivery : testCase.path("deliveries")) {
        String where = "delivery " + index++;
        Map<String, String> headers = new LinkedHashMap<>();
        delivery
            .path("headers")
            .properties()
            .forEach(e -> headers.put(e.getKey(), e.getValue().asText()));
        byte[] body = delivery.path("body").asText().getBytes(StandardCharsets.UTF_8);
        ReceiverResponse answer = endpoint.deliver(headers, body);
        JsonNode expect = delivery.path("expect");
        assertEquals(expect.path("status").asInt(), answer.status(), where + " status");
        if (expect.has("body")) {
          assertEquals(
              expect.get("body"),
              Json.parse(answer.body().getBytes(StandardCharsets.UTF_8)),
              where + " body");
        }
        Map<String, String> answered = new LinkedHashMap<>();
        answer.headers().forEach((k, v) -> answered.put(k.toLowerCase(Locale.ROOT), v));
        assertEquals(
            "application/json", mediaType(answered.get("content-type")), where + " content-type");
        expect
            .path("headers")
            .properties()
            .forEach(
                e ->
                    assertEquals(
                        e.getValue().asText(),
                        answered.get(e.getKey().toLowerCase(Locale.ROOT)),
                        where + " header " + e.getKey()));
        if (expect.has("handlerCalls")) {
          assertEquals(expect.get("handlerCalls").asInt(), calls.get(), where + " handler calls");
        }
      }
    }
  }

  private static String mediaType(String contentType) {
    return contentType == null ? null : contentType.split(";")[0].trim();
  }

  private static CallbackReceiver.Builder builder(JsonNode spec, AtomicInteger calls) {
    CallbackReceiver.Builder builder = CallbackReceiver.builder();
    List<String> secrets = new ArrayList<>();
    spec.path("secrets").forEach(secret -> secrets.add(secret.asText()));
    if (!secrets.isEmpty()) {
      WebhookVerifier.Builder verifier =
          WebhookVerifier.builder()
              .secrets(secrets)
              .clock(Clock.fixed(Instant.ofEpochSecond(spec.path("now").asLong()), ZoneOffset.UTC));
      if (spec.has("toleranceSeconds")) {
        verifier.tolerance(Duration.ofSeconds(spec.get("toleranceSeconds").asLong()));
      }
      builder.verifier(verifier.build());
    }
    if (spec.has("allowUnsigned")) {
      builder.allowUnsigned(spec.get("allowUnsigned").asBoolean());
    }
    spec.path("handlers")
        .properties()
        .forEach(e -> builder.handler(e.getKey(), handler(e.getValue().asText(), calls)));
    return builder;
  }

  /**
   * What a handler of the vectors does: {@code handle}, {@code retry}, {@code fail}, {@code throw}.
   */
  private static CallbackHandler handler(String behaviour, AtomicInteger calls) {
    return callback -> {
      calls.incrementAndGet();
      switch (behaviour) {
        case "handle" -> {}
        case "retry" -> throw new RetryableException("not now", Duration.ofSeconds(30));
        case "fail" -> throw new PermanentException("never");
        case "throw" -> throw new IllegalStateException("internal detail that must not leak");
        default -> throw new AssertionError("unknown handler behaviour " + behaviour);
      }
    };
  }
}
