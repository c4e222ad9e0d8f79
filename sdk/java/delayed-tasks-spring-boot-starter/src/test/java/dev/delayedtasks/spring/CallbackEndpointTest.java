package dev.delayedtasks.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayedtasks.client.callback.WebhookVerifier;
import dev.delayedtasks.spring.app.TestApplication;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/** The auto-configured endpoint in a real embedded Tomcat, called over loopback HTTP. */
@SpringBootTest(
    classes = TestApplication.class,
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "delayed-tasks.webhook.secrets=" + CallbackEndpointTest.SECRET,
      "delayed-tasks.callback.path=/hooks/tasks"
    })
class CallbackEndpointTest {
  static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @LocalServerPort int port;
  @Autowired TestApplication.OrderHandlers orders;
  @Autowired TestApplication.CouponExpiry coupons;

  @BeforeEach
  void reset() {
    orders.closed.clear();
    coupons.expired.clear();
  }

  private static String body(String taskId, String taskType, String payload) {
    return """
        {"taskId":"%s","taskType":"%s","payload":%s,"payloadVersion":1,
         "executeAt":"2026-12-03T10:00:00.000Z","attempt":1,"traceId":null}
        """
        .formatted(taskId, taskType, payload);
  }

  /** A delivery of a task of its own (a new webhook-id). */
  private HttpResponse<String> post(String body, String signature, String idempotencyKey)
      throws IOException, InterruptedException {
    return post("msg_" + UUID.randomUUID(), body, signature, idempotencyKey);
  }

  /** A delivery under {@code messageId}, the webhook-id: the same on every attempt of a task. */
  private HttpResponse<String> post(
      String messageId, String body, String signature, String idempotencyKey)
      throws IOException, InterruptedException {
    long now = Instant.now().getEpochSecond();
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/hooks/tasks"))
            .header("Content-Type", "application/json")
            .header("webhook-id", messageId)
            .header("webhook-timestamp", Long.toString(now))
            .header(
                "webhook-signature",
                signature != null ? signature : WebhookVerifier.sign(SECRET, messageId, now, bytes))
            .POST(HttpRequest.BodyPublishers.ofByteArray(bytes));
    if (idempotencyKey != null) {
      request.header("Idempotency-Key", idempotencyKey);
    }
    return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void aSignedCallbackIsBoundToThePayloadTypeAndAnswered200() throws Exception {
    String taskId = "o-" + UUID.randomUUID();
    HttpResponse<String> response =
        post(
            body(taskId, "order.close", "{\"orderId\":\"10023\",\"amountCents\":990}"),
            null,
            taskId);

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.body()).isEqualTo("{\"status\":\"handled\"}");
    assertThat(response.headers().firstValue("content-type")).hasValue("application/json");
    assertThat(orders.closed).containsExactly(new TestApplication.OrderClose("10023", 990));
  }

  @Test
  void aBeanHandlerReceivesTheCallback() throws Exception {
    String taskId = "c-" + UUID.randomUUID();
    HttpResponse<String> response =
        post(body(taskId, "coupon.expire", "{\"code\":\"X\"}"), null, taskId);

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(coupons.expired).singleElement().extracting(c -> c.taskId()).isEqualTo(taskId);
  }

  @Test
  void aForgedSignatureIs401AndNoHandlerRuns() throws Exception {
    String taskId = "o-" + UUID.randomUUID();
    HttpResponse<String> response =
        post(
            body(taskId, "order.close", "{\"orderId\":\"1\",\"amountCents\":1}"),
            "v1,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
            taskId);

    assertThat(response.statusCode()).isEqualTo(401);
    assertThat(response.body())
        .isEqualTo("{\"status\":\"refused\",\"reason\":\"no_matching_signature\"}");
    assertThat(orders.closed).isEmpty();
  }

  @Test
  void aRepeatedWebhookIdIsAnswered200WithoutRunningTheHandlerAgain() throws Exception {
    String taskId = "o-" + UUID.randomUUID();
    String messageId = "msg_" + UUID.randomUUID();
    String body = body(taskId, "order.close", "{\"orderId\":\"7\",\"amountCents\":1}");

    assertThat(post(messageId, body, null, taskId).body()).isEqualTo("{\"status\":\"handled\"}");
    HttpResponse<String> repeat = post(messageId, body, null, taskId);
    assertThat(repeat.statusCode()).isEqualTo(200);
    assertThat(repeat.body()).isEqualTo("{\"status\":\"duplicate\"}");

    assertThat(orders.closed).hasSize(1);
  }

  /**
   * From the attacker's side: a captured callback of task A sent again with its unsigned
   * Idempotency-Key removed, changed and set to task B's is A again (a duplicate); B's genuine
   * callback still runs.
   */
  @Test
  void aReplayWithATamperedIdempotencyKeyRunsNothingAndTheGenuineTaskStillRuns() throws Exception {
    String taskA = "o-" + UUID.randomUUID();
    String taskB = "o-" + UUID.randomUUID();
    String messageA = "msg_" + UUID.randomUUID();
    String bodyA = body(taskA, "order.close", "{\"orderId\":\"A\",\"amountCents\":1}");
    String bodyB = body(taskB, "order.close", "{\"orderId\":\"B\",\"amountCents\":2}");
    String duplicate = "{\"status\":\"duplicate\"}";

    assertThat(post(messageA, bodyA, null, taskA).body()).isEqualTo("{\"status\":\"handled\"}");
    assertThat(post(messageA, bodyA, null, null).body()).isEqualTo(duplicate);
    assertThat(post(messageA, bodyA, null, "replayed-1").body()).isEqualTo(duplicate);
    assertThat(post(messageA, bodyA, null, taskB).body()).isEqualTo(duplicate);
    assertThat(post(bodyB, null, taskB).body()).isEqualTo("{\"status\":\"handled\"}");

    assertThat(orders.closed)
        .containsExactly(
            new TestApplication.OrderClose("A", 1), new TestApplication.OrderClose("B", 2));
  }

  @Test
  void handlerOutcomesMapToTheCallbackContract() throws Exception {
    HttpResponse<String> busy = post(body("b-1", "order.busy", "{}"), null, null);
    assertThat(busy.statusCode()).isEqualTo(503);
    assertThat(busy.headers().firstValue("retry-after")).hasValue("5");
    assertThat(busy.body()).isEqualTo("{\"status\":\"retry\"}");

    HttpResponse<String> reject = post(body("r-1", "order.reject", "{}"), null, null);
    assertThat(reject.statusCode()).isEqualTo(422);
    assertThat(reject.body()).isEqualTo("{\"status\":\"failed\"}");

    HttpResponse<String> crash = post(body("x-1", "order.crash", "{}"), null, null);
    assertThat(crash.statusCode()).isEqualTo(500);
    assertThat(crash.body()).isEqualTo("{\"status\":\"error\"}");

    HttpResponse<String> unknown = post(body("u-1", "no.such.type", "{}"), null, null);
    assertThat(unknown.statusCode()).isEqualTo(422);
    assertThat(unknown.body())
        .isEqualTo("{\"status\":\"failed\",\"reason\":\"no handler for task type\"}");

    HttpResponse<String> notJson = post("{not json", null, null);
    assertThat(notJson.statusCode()).isEqualTo(400);
    assertThat(notJson.body()).isEqualTo("{\"status\":\"refused\",\"reason\":\"invalid_body\"}");
  }

  @Test
  void aPayloadThatDoesNotBindIsPermanent() throws Exception {
    HttpResponse<String> response =
        post(body("o-bad", "order.close", "{\"amountCents\":\"not a number\"}"), null, null);
    assertThat(response.statusCode()).isEqualTo(422);
    assertThat(orders.closed).isEmpty();
  }
}
