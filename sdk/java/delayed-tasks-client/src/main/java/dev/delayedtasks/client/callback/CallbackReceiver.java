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
 * A framework-neutral callback endpoint: verifies the signature on the raw bytes, parses the body,
 * claims the callback's signed {@code webhook-id} in its {@link IdempotencyStore} (never the
 * unsigned {@code Idempotency-Key} header), dispatches by task type, completes the key when the
 * handler returned and releases it when it threw, and answers as every SDK of this service does
 * ({@code application/json}):
 *
 * <table>
 *   <caption>Answers</caption>
 *   <tr><th>outcome</th><th>status</th><th>body</th></tr>
 *   <tr><td>handled</td><td>200</td><td>{@code {"status":"handled"}}</td></tr>
 *   <tr><td>a repeat of a handled key (handler not run)</td><td>200</td>
 *       <td>{@code {"status":"duplicate"}}</td></tr>
 *   <tr><td>the key is claimed by another replica right now (handler not run)</td>
 *       <td>503 + {@code Retry-After: 5}</td><td>{@code {"status":"retry"}}</td></tr>
 *   <tr><td>signature missing, invalid or expired</td><td>401</td>
 *       <td>{@code {"status":"refused","reason":"no_matching_signature"}} (the {@link
 *       RejectionReason})</td></tr>
 *   <tr><td>a signed body that is not a callback</td><td>400</td>
 *       <td>{@code {"status":"refused","reason":"invalid_body"}}</td></tr>
 *   <tr><td>{@link RetryableException}</td><td>503 (+ {@code Retry-After} when it gave a delay)</td>
 *       <td>{@code {"status":"retry"}}</td></tr>
 *   <tr><td>{@link PermanentException}</td><td>422</td><td>{@code {"status":"failed"}}</td></tr>
 *   <tr><td>no handler for the task type</td><td>422</td>
 *       <td>{@code {"status":"failed","reason":"no handler for task type"}}</td></tr>
 *   <tr><td>any other exception (logged, never answered)</td><td>500</td>
 *       <td>{@code {"status":"error"}}</td></tr>
 * </table>
 *
 * <p>Unsigned callbacks are refused: {@link Builder#build()} fails without a {@link
 * WebhookVerifier} unless {@link Builder#allowUnsigned(boolean) allowUnsigned(true)} says so, and a
 * configured verifier is always applied. Adapters pass the headers and the raw body and write the
 * {@link ReceiverResponse} back: {@link CallbackHttpHandler} for the JDK's {@code HttpServer}, the
 * Spring Boot starter's endpoint.
 */
public final class CallbackReceiver {
  private static final Logger LOG = Logger.getLogger(CallbackReceiver.class.getName());

  /** The {@code reason} of an answer to a task type that has no handler. */
  public static final String NO_HANDLER = "no handler for task type";

  /** The {@code Retry-After} of a 503 for a key another holder is running. */
  static final Duration IN_PROGRESS_RETRY_AFTER = Duration.ofSeconds(5);

  private final WebhookVerifier verifier;
  private final Idempotency idempotency;
  private final Map<String, CallbackHandler> handlers;

  private CallbackReceiver(Builder b) {
    this.verifier = b.verifier;
    this.idempotency = new Idempotency(b.store, b.claimTtl);
    this.handlers = Map.copyOf(b.handlers);
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Whether signatures are checked (false only when built with {@code allowUnsigned(true)}). */
  public boolean verifiesSignatures() {
    return verifier != null;
  }

  /** Handles one delivery; never throws for anything the handler does. */
  public ReceiverResponse handle(Map<String, String> headers, byte[] body) {
    Map<String, String> lookup = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    lookup.putAll(headers);
    Callback callback;
    String key;
    try {
      // The key is what the signature covers, read once it held: the webhook-id (the same on
      // every attempt of a task, owner-scoped), never the unsigned Idempotency-Key header, which
      // a replay within the tolerance could drop or swap for another task's. Unsigned, the
      // body's task id: the key and the work come from the same bytes.
      String signedId = verifier != null ? verifier.verify(lookup, body) : null;
      callback = Callback.parse(body);
      key = signedId != null ? signedId : callback.taskId();
    } catch (CallbackRejectedException e) {
      int status = e.reason() == RejectionReason.INVALID_BODY ? 400 : 401;
      return answer(status, "refused", e.reason().wireName(), null);
    }
    CallbackHandler handler = handlers.get(callback.taskType());
    if (handler == null) {
      return answer(422, "failed", NO_HANDLER, null);
    }
    try {
      switch (idempotency.runOnce(key, () -> handler.handle(callback))) {
        case CLAIMED:
          return answer(200, "handled", null, null);
        case DONE:
          return answer(200, "duplicate", null, null);
        default: // IN_PROGRESS: another replica runs it now; the service retries
          return answer(503, "retry", null, IN_PROGRESS_RETRY_AFTER);
      }
    } catch (RetryableException e) {
      return answer(503, "retry", null, e.retryAfter().orElse(null));
    } catch (PermanentException e) {
      LOG.log(Level.FINE, "callback handler for " + callback.taskType() + " failed for good", e);
      return answer(422, "failed", null, null);
    } catch (Exception e) {
      LOG.log(Level.WARNING, "callback handler for " + callback.taskType() + " failed", e);
      return answer(500, "error", null, null);
    }
  }

  /** {@code {"status": ..., "reason"?: ...}}, and {@code Retry-After} in whole seconds. */
  private static ReceiverResponse answer(
      int status, String outcome, String reason, Duration retryAfter) {
    ObjectNode body = Json.MAPPER.createObjectNode().put("status", outcome);
    if (reason != null) {
      body.put("reason", reason);
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
    private boolean allowUnsigned;
    private IdempotencyStore store = new InMemoryIdempotencyStore();
    private Duration claimTtl = IdempotencyStore.DEFAULT_CLAIM_TTL;
    private final Map<String, CallbackHandler> handlers = new HashMap<>();

    private Builder() {}

    /** Checks every delivery's signature; required unless {@link #allowUnsigned(boolean)}. */
    public Builder verifier(WebhookVerifier verifier) {
      this.verifier = verifier;
      return this;
    }

    /**
     * Accept callbacks without a signature when no {@link #verifier} is set (default false: such a
     * receiver cannot be built). A verifier, when set, is applied whatever this says.
     */
    public Builder allowUnsigned(boolean allowUnsigned) {
      this.allowUnsigned = allowUnsigned;
      return this;
    }

    /**
     * Where keys are claimed and remembered (default {@link InMemoryIdempotencyStore}: one
     * process); share a Redis or SQL store across replicas.
     */
    public Builder idempotencyStore(IdempotencyStore store) {
      this.store = Objects.requireNonNull(store, "store");
      return this;
    }

    /**
     * How long a claim outlives a handler that crashed (default 5 minutes): longer than a handler
     * takes, since a live claim that expires lets a second replica run the effect too.
     */
    public Builder claimTtl(Duration claimTtl) {
      this.claimTtl = IdempotencyStores.positive(claimTtl, "claimTtl");
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

    /**
     * @throws IllegalStateException without a verifier, unless {@code allowUnsigned(true)}
     */
    public CallbackReceiver build() {
      if (verifier == null && !allowUnsigned) {
        throw new IllegalStateException(
            "no webhook secrets: give a verifier, or allowUnsigned(true) to accept unsigned"
                + " callbacks");
      }
      return new CallbackReceiver(this);
    }
  }
}
