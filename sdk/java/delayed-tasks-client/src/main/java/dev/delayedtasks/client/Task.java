package dev.delayedtasks.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.delayedtasks.client.internal.Json;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * A task as the API returns it: what a list shows of it ({@link #summary()}: id, type, status,
 * times, attempts) and the details only a single task's answer carries. Nullable components say so.
 *
 * <pre>{@code
 * Task task = client.status(taskId);
 * task.status();            // SCHEDULED, ... (the summary's fields read through, as task.summary().status())
 * task.payload();            // the JSON object given to the callback
 * }</pre>
 *
 * @param summary the task as a list shows it (its {@code priority} is always set here)
 * @param payload the JSON object given to the callback, numbers as sent
 * @param payloadVersion version of the payload schema
 * @param maxRetries retries after the first attempt
 * @param timeoutMs limit of one callback attempt
 * @param traceId the caller's trace id, or null
 * @param nextAttemptAt when the next retry is due, or null
 * @param firedAt when the first attempt started, or null
 * @param delivery a pull or broker task's delivery, defaults applied; null for a callback task
 * @param lease while a worker holds a pull task: when its lease runs out and who holds it, or null
 * @param attemptHistory the newest callback attempts of the current run (up to 50), oldest first;
 *     empty when none were made or the server does not say
 */
public record Task(
    TaskSummary summary,
    ObjectNode payload,
    int payloadVersion,
    int maxRetries,
    int timeoutMs,
    String traceId,
    Instant nextAttemptAt,
    Instant firedAt,
    Delivery delivery,
    TaskLease lease,
    List<TaskAttempt> attemptHistory) {

  public Task {
    attemptHistory = attemptHistory == null ? List.of() : List.copyOf(attemptHistory);
  }

  // The summary's fields, read as on a list entry (task.status(), as in the other SDKs).

  /** The task's id. */
  public String taskId() {
    return summary.taskId();
  }

  /** The team or service it belongs to, or null from a server that does not say. */
  public String owner() {
    return summary.owner();
  }

  /** Its type. */
  public String taskType() {
    return summary.taskType();
  }

  /** Where it is. */
  public TaskStatus status() {
    return summary.status();
  }

  /** When it runs (or ran), or null. */
  public Instant executeAt() {
    return summary.executeAt();
  }

  /** When it was created, or null. */
  public Instant createdAt() {
    return summary.createdAt();
  }

  /** Where it is delivered, or null. */
  public String callbackUrl() {
    return summary.callbackUrl();
  }

  /** {@code pull} or {@code broker} for a task without a callback, or null. */
  public String deliveryMode() {
    return summary.deliveryMode();
  }

  /**
   * A pull task's lease while a worker holds it.
   *
   * @param expiresAt when the lease runs out unless extended
   * @param workerIdentity who holds it, or null
   */
  public record TaskLease(Instant expiresAt, String workerIdentity) {
    static TaskLease from(JsonNode node) {
      return node == null || !node.isObject()
          ? null
          : new TaskLease(Json.time(node, "expiresAt"), Json.text(node, "workerIdentity"));
    }
  }

  /** 1 highest to 5 lowest, or null from a server that does not say. */
  public Integer priority() {
    return summary.priority();
  }

  /** Callback attempts made so far. */
  public int attempts() {
    return summary.attempts();
  }

  /** The last failure, or null. */
  public TaskError lastError() {
    return summary.lastError();
  }

  /** When it closed, or null. */
  public Instant completedAt() {
    return summary.completedAt();
  }

  static Task from(JsonNode node) {
    JsonNode payload = node.get("payload");
    return new Task(
        TaskSummary.from(node),
        payload instanceof ObjectNode object ? object : Json.MAPPER.createObjectNode(),
        node.path("payloadVersion").asInt(1),
        node.path("maxRetries").asInt(),
        node.path("timeoutMs").asInt(),
        Json.text(node, "traceId"),
        Json.time(node, "nextAttemptAt"),
        Json.time(node, "firedAt"),
        Delivery.from(node.get("delivery")),
        TaskLease.from(node.get("lease")),
        attempts(node.get("attemptHistory")));
  }

  private static List<TaskAttempt> attempts(JsonNode node) {
    List<TaskAttempt> attempts = new ArrayList<>();
    if (node != null) {
      node.forEach(attempt -> attempts.add(TaskAttempt.from(attempt)));
    }
    return attempts;
  }
}
