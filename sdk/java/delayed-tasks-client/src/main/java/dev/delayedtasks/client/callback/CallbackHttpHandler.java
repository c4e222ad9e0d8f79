package dev.delayedtasks.client.callback;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The callback endpoint on the JDK's own {@code com.sun.net.httpserver.HttpServer}, no framework
 * needed: hands each {@code POST} (headers and raw body) to a {@link CallbackReceiver} and writes
 * its answer back; any other method is answered 405.
 *
 * <pre>{@code
 * CallbackReceiver receiver = CallbackReceiver.builder()
 *     .verifier(WebhookVerifier.builder().secret(System.getenv("DTS_WEBHOOK_SECRET")).build())
 *     .handler("order.close", callback -> orders.close(callback.payload().get("orderId").asText()))
 *     .build();
 * HttpServer server = HttpServer.create(new InetSocketAddress(8080), 0);
 * server.createContext("/delayed-tasks/callback", new CallbackHttpHandler(receiver));
 * server.start();
 * }</pre>
 */
public final class CallbackHttpHandler implements HttpHandler {
  /** Bodies beyond this are answered 413 without reading them all (callbacks are far smaller). */
  private static final int MAX_BODY_BYTES = 4 * 1024 * 1024;

  private final CallbackReceiver receiver;

  public CallbackHttpHandler(CallbackReceiver receiver) {
    this.receiver = Objects.requireNonNull(receiver, "receiver");
  }

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      if (!"POST".equals(exchange.getRequestMethod())) {
        exchange.getResponseHeaders().set("Allow", "POST");
        exchange.sendResponseHeaders(405, -1);
        return;
      }
      byte[] body = readBody(exchange.getRequestBody());
      if (body == null) {
        exchange.sendResponseHeaders(413, -1);
        return;
      }
      Map<String, String> headers = new HashMap<>();
      for (Map.Entry<String, List<String>> header : exchange.getRequestHeaders().entrySet()) {
        if (!header.getValue().isEmpty()) {
          headers.put(header.getKey(), header.getValue().get(0));
        }
      }
      ReceiverResponse answer = receiver.handle(headers, body);
      answer.headers().forEach(exchange.getResponseHeaders()::set);
      byte[] bytes = answer.body().getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(answer.status(), bytes.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(bytes);
      }
    }
  }

  /** The whole body, or null when it is larger than {@link #MAX_BODY_BYTES}. */
  private static byte[] readBody(InputStream in) throws IOException {
    try (in) {
      byte[] body = in.readNBytes(MAX_BODY_BYTES + 1);
      return body.length > MAX_BODY_BYTES ? null : body;
    }
  }
}
