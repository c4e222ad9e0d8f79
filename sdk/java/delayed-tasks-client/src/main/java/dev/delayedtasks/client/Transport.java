package dev.delayedtasks.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.delayedtasks.client.internal.Json;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.concurrent.ThreadLocalRandom;

/** One HTTP exchange with retries; turns error answers into {@link DelayedTaskException}. */
final class Transport {
  /** Sleeps between attempts; tests replace it to observe the waits. */
  interface Sleeper {
    void sleep(Duration duration) throws InterruptedException;
  }

  /** A successful (2xx) answer and its {@code x-request-id} (null when absent). */
  record Answer(int status, JsonNode body, String requestId) {}

  private static final String REQUEST_ID_HEADER = "x-request-id";

  private final String baseUrl;
  private final String apiKey;
  private final Duration timeout;
  private final RetryPolicy retryPolicy;
  private final HttpClient http;
  private final Sleeper sleeper;

  Transport(
      String baseUrl,
      String apiKey,
      Duration timeout,
      RetryPolicy retryPolicy,
      HttpClient http,
      Sleeper sleeper) {
    this.baseUrl = baseUrl;
    this.apiKey = apiKey;
    this.timeout = timeout;
    this.retryPolicy = retryPolicy;
    this.http = http;
    this.sleeper = sleeper;
  }

  /** The timeout of one attempt. */
  Duration timeout() {
    return timeout;
  }

  Answer send(String method, String path, Map<String, String> query, ObjectNode body) {
    return send(method, path, query, body, timeout);
  }

  /** With a timeout of its own: a long poll outlasts the default. */
  Answer send(
      String method,
      String path,
      Map<String, String> query,
      ObjectNode body,
      Duration attemptTimeout) {
    HttpRequest request = build(method, path, query, body, attemptTimeout);
    for (int attempt = 0; ; attempt++) {
      boolean mayRetry = attempt < retryPolicy.maxRetries();
      HttpResponse<byte[]> response;
      try {
        response = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
      } catch (IOException e) {
        if (mayRetry) {
          pause(attempt + 1, Duration.ZERO);
          continue;
        }
        throw new DelayedTaskException(
            ErrorCode.UNAVAILABLE.name(),
            "network error after " + (attempt + 1) + " attempt(s): " + e,
            0,
            List.of(),
            null,
            e);
      } catch (InterruptedException e) {
        throw interrupted(e);
      }
      int status = response.statusCode();
      if (status >= 200 && status < 300) {
        return new Answer(status, parseSuccess(response), requestId(response));
      }
      if ((status == 429 || status == 503) && mayRetry) {
        pause(attempt + 1, retryAfter(response));
        continue;
      }
      throw errorFrom(response);
    }
  }

  private HttpRequest build(
      String method,
      String path,
      Map<String, String> query,
      ObjectNode body,
      Duration attemptTimeout) {
    StringBuilder uri = new StringBuilder(baseUrl).append(path);
    if (!query.isEmpty()) {
      StringJoiner joiner = new StringJoiner("&", "?", "");
      query.forEach((k, v) -> joiner.add(PathEncoding.encode(k) + "=" + PathEncoding.encode(v)));
      uri.append(joiner);
    }
    HttpRequest.Builder builder =
        HttpRequest.newBuilder(URI.create(uri.toString()))
            .timeout(attemptTimeout)
            .header("User-Agent", Version.USER_AGENT)
            .header("Accept", "application/json");
    if (apiKey != null) {
      builder.header("Authorization", "Bearer " + apiKey);
    }
    if (body == null) {
      builder.method(method, HttpRequest.BodyPublishers.noBody());
    } else {
      builder
          .header("Content-Type", "application/json")
          .method(method, HttpRequest.BodyPublishers.ofByteArray(Json.write(body)));
    }
    return builder.build();
  }

  private void pause(int retry, Duration retryAfter) {
    long ceiling = retryPolicy.backoffCeiling(retry).toMillis();
    long jitter = ceiling <= 0 ? 0 : ThreadLocalRandom.current().nextLong(ceiling + 1);
    long honoured = Math.min(retryAfter.toMillis(), retryPolicy.maxRetryAfter().toMillis());
    long wait = Math.max(jitter, honoured);
    if (wait <= 0) {
      return;
    }
    try {
      sleeper.sleep(Duration.ofMillis(wait));
    } catch (InterruptedException e) {
      throw interrupted(e);
    }
  }

  private static DelayedTaskException interrupted(InterruptedException e) {
    Thread.currentThread().interrupt();
    return new DelayedTaskException(
        ErrorCode.UNAVAILABLE.name(), "interrupted", 0, List.of(), null, e);
  }

  /** {@code Retry-After} in seconds; an HTTP date or garbage counts as absent. */
  private static Duration retryAfter(HttpResponse<?> response) {
    return response
        .headers()
        .firstValue("retry-after")
        .map(
            value -> {
              try {
                double seconds = Double.parseDouble(value.trim());
                return seconds > 0 && Double.isFinite(seconds)
                    ? Duration.ofMillis((long) (seconds * 1000))
                    : Duration.ZERO;
              } catch (NumberFormatException e) {
                return Duration.ZERO;
              }
            })
        .orElse(Duration.ZERO);
  }

  private static JsonNode parseSuccess(HttpResponse<byte[]> response) {
    if (response.body().length == 0) {
      return NullNode.getInstance(); // 204 No Content (a delete)
    }
    try {
      return Json.parse(response.body());
    } catch (IOException e) {
      throw new DelayedTaskException(
          ErrorCode.UNKNOWN.name(),
          "HTTP " + response.statusCode() + " with a body that is not JSON",
          response.statusCode(),
          List.of(),
          requestId(response),
          e);
    }
  }

  private static DelayedTaskException errorFrom(HttpResponse<byte[]> response) {
    int status = response.statusCode();
    String requestId = requestId(response);
    JsonNode error;
    try {
      error = Json.parse(response.body()).path("error");
    } catch (IOException e) {
      error = null;
    }
    String text = new String(response.body(), StandardCharsets.UTF_8);
    String snippet = text.length() > 200 ? text.substring(0, 200) + "..." : text;
    return errorFrom(error, status, requestId, "HTTP " + status + ": " + snippet);
  }

  /**
   * The API's {@code {code, message, details}} (of an answer, or of one batch item) as the
   * exception; {@code UNKNOWN} with {@code fallback} as message when it is not that shape.
   */
  static DelayedTaskException errorFrom(
      JsonNode error, int status, String requestId, String fallback) {
    if (error == null || !error.path("code").isTextual()) {
      return new DelayedTaskException(
          ErrorCode.UNKNOWN.name(), fallback, status, List.of(), requestId, null);
    }
    List<ErrorDetail> details = new ArrayList<>();
    for (JsonNode detail : error.path("details")) {
      details.add(new ErrorDetail(Json.text(detail, "field"), Json.text(detail, "reason")));
    }
    String message = Json.text(error, "message");
    return new DelayedTaskException(
        error.path("code").asText(),
        message == null ? "HTTP " + status : message,
        status,
        details,
        requestId,
        null);
  }

  private static String requestId(HttpResponse<?> response) {
    return response.headers().firstValue(REQUEST_ID_HEADER).orElse(null);
  }
}
