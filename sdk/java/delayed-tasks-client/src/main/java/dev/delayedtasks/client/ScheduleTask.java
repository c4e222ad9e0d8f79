package dev.delayedtasks.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.delayedtasks.client.internal.Json;

/**
 * The task every occurrence of a schedule runs, defaults applied. {@code payload} and {@code
 * callbackUrl} are null in the answer of a write verb when the API key lacks {@code
 * schedules:read}; {@code delivery} is null for callback occurrences.
 */
public record ScheduleTask(
    String taskType,
    ObjectNode payload,
    int payloadVersion,
    String callbackUrl,
    Delivery delivery,
    int maxRetries,
    int timeoutMs,
    String traceId,
    int priority) {

  static ScheduleTask from(JsonNode node) {
    return new ScheduleTask(
        Json.text(node, "taskType"),
        node.get("payload") instanceof ObjectNode payload ? payload : null,
        node.path("payloadVersion").asInt(1),
        Json.text(node, "callbackUrl"),
        Delivery.from(node.get("delivery")),
        node.path("maxRetries").asInt(),
        node.path("timeoutMs").asInt(),
        Json.text(node, "traceId"),
        node.path("priority").asInt());
  }
}
