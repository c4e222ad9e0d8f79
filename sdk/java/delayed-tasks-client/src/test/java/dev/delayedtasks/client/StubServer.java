package dev.delayedtasks.client;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * A loopback HTTP server (JDK {@code HttpServer}) answering canned responses in order and recording
 * every request. When the responses run out it answers 599, so an unexpected extra request shows.
 */
final class StubServer implements AutoCloseable {
  /** A recorded request; header names lower-case. */
  record Recorded(
      String method, String rawPath, String rawQuery, Map<String, String> headers, byte[] body) {
    String bodyText() {
      return new String(body, StandardCharsets.UTF_8);
    }
  }

  /** A canned response. */
  record Canned(int status, Map<String, String> headers, byte[] body) {
    static Canned json(int status, String body) {
      return new Canned(
          status,
          Map.of("content-type", "application/json"),
          body.getBytes(StandardCharsets.UTF_8));
    }
  }

  private final HttpServer server;
  private final Deque<Canned> responses = new ArrayDeque<>();
  private final List<Recorded> requests = new ArrayList<>();

  StubServer() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", this::handle);
    server.start();
  }

  String baseUrl() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  synchronized StubServer enqueue(Canned response) {
    responses.add(response);
    return this;
  }

  synchronized StubServer enqueueJson(int status, String body) {
    return enqueue(Canned.json(status, body));
  }

  synchronized List<Recorded> requests() {
    return List.copyOf(requests);
  }

  private void handle(HttpExchange exchange) throws IOException {
    Map<String, String> headers = new TreeMap<>();
    exchange
        .getRequestHeaders()
        .forEach(
            (name, values) -> headers.put(name.toLowerCase(Locale.ROOT), String.join(",", values)));
    byte[] body = exchange.getRequestBody().readAllBytes();
    Canned response;
    synchronized (this) {
      requests.add(
          new Recorded(
              exchange.getRequestMethod(),
              exchange.getRequestURI().getRawPath(),
              exchange.getRequestURI().getRawQuery(),
              headers,
              body));
      response = responses.poll();
    }
    if (response == null) {
      response =
          Canned.json(599, "{\"error\":{\"code\":\"STUB_EXHAUSTED\",\"message\":\"no response\"}}");
    }
    response.headers().forEach((k, v) -> exchange.getResponseHeaders().add(k, v));
    exchange.sendResponseHeaders(
        response.status(), response.body().length == 0 ? -1 : response.body().length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(response.body());
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
