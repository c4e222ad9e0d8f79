package dev.delayedtasks.client;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayedtasks.client.internal.Json;
import java.time.Instant;

/**
 * A task as a list shows it, without its payload (fetch the task for it), and the first component
 * of a {@link Task}: one definition of these fields and their JSON mapping. Nullable components say
 * so.
 *
 * @param taskId the task's id
 * @param owner the team or service it belongs to (the owner of the API key that created it), or
 *     null from a server that does not say
 * @param taskType its type
 * @param status where it is
 * @param executeAt when it runs (or ran), or null
 * @param createdAt when it was created, or null
 * @param callbackUrl where it is delivered, or null (a pull or broker task)
 * @param deliveryMode {@code pull} or {@code broker} (or a newer mode) for a task without a
 *     callback, or null
 * @param priority 1 highest to 5 lowest, or null
 * @param attempts callback attempts made so far
 * @param lastError the last failure, or null
 * @param completedAt when it closed, or null
 */
public record TaskSummary(
    String taskId,
    String owner,
    String taskType,
    TaskStatus status,
    Instant executeAt,
    Instant createdAt,
    String callbackUrl,
    String deliveryMode,
    Integer priority,
    int attempts,
    TaskError lastError,
    Instant completedAt) {

  /** A list entry's deliveryMode, or a whole task's delivery's mode. */
  private static String deliveryMode(JsonNode node) {
    String mode = Json.text(node, "deliveryMode");
    return mode != null ? mode : Json.text(node.path("delivery"), "mode");
  }

  /** From a list entry or a whole task, which has these fields under the same names. */
  static TaskSummary from(JsonNode node) {
    return new TaskSummary(
        Json.text(node, "taskId"),
        Json.text(node, "owner"),
        Json.text(node, "taskType"),
        TaskStatus.fromWire(Json.text(node, "status")),
        Json.time(node, "executeAt"),
        Json.time(node, "createdAt"),
        Json.text(node, "callbackUrl"),
        deliveryMode(node),
        Json.integer(node, "priority"),
        node.path("attempts").asInt(),
        TaskError.from(node.get("lastError")),
        Json.time(node, "completedAt"));
  }
}
