package dev.delayedtasks.client.callback;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import dev.delayedtasks.client.internal.Json;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/** {@link CallbackHttpHandler} on a real JDK {@link HttpServer} on loopback, called over HTTP. */
class CallbackHttpHandlerTest {
  private static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
  private static final String PATH = "/delayed-tasks/callback";
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  /** Headers the JDK client refuses to set; they do not decide any answer. */
  private static final Set<String> RESTRICTED = Set.of("content-length", "host", "connection");

  /** A started server serving the receiver at {@link #PATH}; stopped on close. */
  static ReceiverVectors.MountedEndpoint serve(CallbackReceiver receiver) throws IOException {
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(PATH, new CallbackHttpHandler(receiver));
    server.start();
    URI uri = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + PATH);
    return new ReceiverVectors.MountedEndpoint() {
      @Override
      public ReceiverResponse deliver(Map<String, String> headers, byte[] body)
          throws IOException, InterruptedException {
        HttpRequest.Builder request =
            HttpRequest.newBuilder(uri).POST(HttpRequest.BodyPublishers.ofByteArray(body));
        headers.forEach(
            (name, value) -> {
              if (!RESTRICTED.contains(name.toLowerCase(java.util.Locale.ROOT))) {
                request.header(name, value);
              }
            });
        HttpResponse<String> response =
            HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
        Map<String, String> answered = new HashMap<>();
        response.headers().map().forEach((name, values) -> answered.put(name, values.get(0)));
        return new ReceiverResponse(response.statusCode(), answered, response.body());
      }

      @Override
      public void close() {
        server.stop(0);
      }
    };
  }

  /** Every case of {@code receiver.json} again, through the HTTP server: the same answers. */
  @TestFactory
  Stream<DynamicTest> receiverVectorsOverHttp() throws IOException {
    Path file =
        Path.of(System.getProperty("conformance.dir", "../../../conformance"))
            .resolve("callbacks/receiver.json");
    if (!Files.isRegularFile(file)) {
      return Stream.of(
          DynamicTest.dynamicTest(
              "receiver.json", () -> Assumptions.abort("no vectors at " + file.toAbsolutePath())));
    }
    List<DynamicTest> tests = new ArrayList<>();
    for (JsonNode testCase : Json.parse(Files.readAllBytes(file))) {
      tests.add(
          DynamicTest.dynamicTest(
              testCase.path("name").asText(),
              () -> ReceiverVectors.run(testCase, CallbackHttpHandlerTest::serve)));
    }
    return tests.stream();
  }

  @Test
  void aSignedCallbackIsHandledOverHttp() throws Exception {
    List<Callback> handled = new ArrayList<>();
    CallbackReceiver receiver =
        CallbackReceiver.builder()
            .verifier(WebhookVerifier.builder().secret(SECRET).build())
            .handler("order.close", handled::add)
            .build();
    byte[] body = CallbackTest.BODY.getBytes(StandardCharsets.UTF_8);
    long now = Instant.now().getEpochSecond();
    Map<String, String> headers =
        Map.of(
            "Webhook-Id",
            "msg_1",
            "Webhook-Timestamp",
            Long.toString(now),
            "Webhook-Signature",
            WebhookVerifier.sign(SECRET, "msg_1", now, body),
            "Idempotency-Key",
            "order-1");
    try (ReceiverVectors.MountedEndpoint endpoint = serve(receiver)) {
      ReceiverResponse first = endpoint.deliver(headers, body);
      ReceiverResponse again = endpoint.deliver(headers, body);

      assertEquals(200, first.status());
      assertEquals("{\"status\":\"handled\"}", first.body());
      assertEquals("application/json", first.headers().get("content-type"));
      assertEquals("{\"status\":\"duplicate\"}", again.body());
      assertEquals(1, handled.size());
    }
  }

  @Test
  void onlyPostIsAccepted() throws Exception {
    CallbackReceiver receiver = CallbackReceiver.builder().allowUnsigned(true).build();
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(PATH, new CallbackHttpHandler(receiver));
    server.start();
    try {
      HttpResponse<String> response =
          HTTP.send(
              HttpRequest.newBuilder(
                      URI.create("http://127.0.0.1:" + server.getAddress().getPort() + PATH))
                  .GET()
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(405, response.statusCode());
      assertEquals("POST", response.headers().firstValue("allow").orElse(null));
    } finally {
      server.stop(0);
    }
  }
}
