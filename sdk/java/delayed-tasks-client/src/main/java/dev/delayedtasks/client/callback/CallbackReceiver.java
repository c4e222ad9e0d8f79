package dev.delayedtasks.client.callback;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.delayedtasks.client.internal.Json;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A framework-neutral callback endpoint: verifies the signature (when a verifier is set), parses
 * the body, skips repeats of a handled {@code Idempotency-Key}, dispatches by task type and maps
 * the outcome to the status the service understands:
 *
 * <ul>
 *   <li>200: handled (or a repeat of a handled key);
 *   <li>400: unparseable body; 401: signature check failed;
 *   <li>422: {@link PermanentException}, or a task type with no handler (permanent);
 *   <li>503 (+ {@code Retry-After}): {@link RetryableException}; 500: any other exception.
 * </ul>
 *
 * Adapters (the Spring Boot starter, a JDK {@code HttpServer}) pass the headers and the raw body
 * and write the {@link ReceiverResponse} back.
 */
public final class CallbackReceiver {
  private static final Logger LOG = Logger.getLogger(CallbackReceiver.class.getName());

  private final WebhookVerifier verifier;
  private final Idempotency idempotency;
  private final Map<String, CallbackHandler> handlers;

  private CallbackReceiver(Builder b) {
    this.verifier = b.verifier;
    this.idempotency = new Idempotency(b.store);
    this.handlers = Map.copyOf(b.handlers);
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Whether signatures are checked (false only when no verifier was configured). */
  public boolean verifiesSignatures() {
    return verifier != null;
  }

  /** Handles one delivery; never throws for anything the handler does. */
  public ReceiverResponse handle(Map<String, String> headers, byte[] body) {
    Map<String, String> lookup = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    lookup.putAll(headers);
    Callback callback;
    try {
      if (verifier != null) {
        verifier.verify(lookup, body);
      }
      callback = Callback.parse(body);
    } catch (CallbackRejectedException e) {
      int status = e.reason() == RejectionReason.INVALID_BODY ? 400 : 401;
      return answer(status, e.reason().wireName(), e.getMessage(), null);
    }
    CallbackHandler handler = handlers.get(callback.taskType());
    if (handler == null) {
      return answer(
          422, "unknown_task_type", "no handler for task type " + callback.taskType(), null);
    }
    try {
      boolean ran =
          idempotency.runOnce(lookup.get(Idempotency.HEADER), () -> handler.handle(callback));
      return answer(200, ran ? "handled" : "duplicate", null, null);
    } catch (RetryableException e) {
      return answer(503, "retry", e.getMessage(), e.retryAfter().orElse(null));
    } catch (PermanentException e) {
      return answer(422, "permanent_failure", e.getMessage(), null);
    } catch (Exception e) {
      LOG.log(Level.WARNING, "callback handler for " + callback.taskType() + " failed", e);
      return answer(500, "handler_error", "the handler failed", null);
    }
  }

  private static ReceiverResponse answer(
      int status, String outcome, String message, Duration retryAfter) {
    ObjectNode body = Json.MAPPER.createObjectNode().put("outcome", outcome);
    if (message != null) {
      body.put("message", message);
    }
    Map<String, String> headers = new HashMap<>();
    headers.put("Content-Type", "application/json");
    if (retryAfter != null) {
      long seconds = Math.max(1, (retryAfter.toMillis() + 999) / 1000);
      headers.put("Retry-After", Long.toString(seconds));
    }
    return new ReceiverResponse(
        status, headers, new String(Json.write(body), StandardCharsets.UTF_8));
  }

  /** Builds a {@link CallbackReceiver}. */
  public static final class Builder {
    private WebhookVerifier verifier;
    private IdempotencyStore store = new InMemoryIdempotencyStore();
    private final Map<String, CallbackHandler> handlers = new HashMap<>();

    private Builder() {}

    /** Checks every delivery's signature; without one, deliveries are not authenticated. */
    public Builder verifier(WebhookVerifier verifier) {
      this.verifier = verifier;
      return this;
    }

    /** Where handled keys are remembered (default in memory). */
    public Builder idempotencyStore(IdempotencyStore store) {
      this.store = Objects.requireNonNull(store, "store");
      return this;
    }

    /** The handler of one task type; one per type. */
    public Builder handler(String taskType, CallbackHandler handler) {
      Objects.requireNonNull(taskType, "taskType");
      Objects.requireNonNull(handler, "handler");
      if (handlers.putIfAbsent(taskType, handler) != null) {
        throw new IllegalStateException("two handlers for task type " + taskType);
      }
      return this;
    }

    public CallbackReceiver build() {
      return new CallbackReceiver(this);
    }
  }
}
