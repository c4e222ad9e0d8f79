package dev.delayedtasks.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.delayedtasks.client.internal.Json;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * A task as the API returns it. Nullable components say so.
 *
 * @param taskId the task's id
 * @param owner the team or service it belongs to (the owner of the API key that created it), or
 *     null from a server that does not say
 * @param taskType its type
 * @param status where it is
 * @param executeAt when it runs (or ran)
 * @param createdAt when it was created
 * @param payload the JSON object given to the callback, numbers as sent
 * @param payloadVersion version of the payload schema
 * @param callbackUrl where it is delivered
 * @param maxRetries retries after the first attempt
 * @param timeoutMs limit of one callback attempt
 * @param traceId the caller's trace id, or null
 * @param priority 1 highest to 5 lowest
 * @param attempts callback attempts made so far
 * @param lastError the last failure, or null
 * @param nextAttemptAt when the next retry is due, or null
 * @param firedAt when the first attempt started, or null
 * @param completedAt when it closed, or null
 * @param attemptHistory the newest callback attempts of the current run (up to 50), oldest first;
 *     empty when none were made or the server does not say
 */
public record Task(
    String taskId,
    String owner,
    String taskType,
    TaskStatus status,
    Instant executeAt,
    Instant createdAt,
    ObjectNode payload,
    int payloadVersion,
    String callbackUrl,
    int maxRetries,
    int timeoutMs,
    String traceId,
    int priority,
    int attempts,
    TaskError lastError,
    Instant nextAttemptAt,
    Instant firedAt,
    Instant completedAt,
    List<TaskAttempt> attemptHistory) {

  public Task {
    attemptHistory = attemptHistory == null ? List.of() : List.copyOf(attemptHistory);
  }

  static Task from(JsonNode node) {
    JsonNode payload = node.get("payload");
    return new Task(
        Json.text(node, "taskId"),
        Json.text(node, "owner"),
        Json.text(node, "taskType"),
        TaskStatus.fromWire(Json.text(node, "status")),
        Json.time(node, "executeAt"),
        Json.time(node, "createdAt"),
        payload instanceof ObjectNode object ? object : Json.MAPPER.createObjectNode(),
        node.path("payloadVersion").asInt(1),
        Json.text(node, "callbackUrl"),
        node.path("maxRetries").asInt(),
        node.path("timeoutMs").asInt(),
        Json.text(node, "traceId"),
        node.path("priority").asInt(),
        node.path("attempts").asInt(),
        TaskError.from(node.get("lastError")),
        Json.time(node, "nextAttemptAt"),
        Json.time(node, "firedAt"),
        Json.time(node, "completedAt"),
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
