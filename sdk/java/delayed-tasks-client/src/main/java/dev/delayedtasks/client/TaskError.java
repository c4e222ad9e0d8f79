package dev.delayedtasks.client;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayedtasks.client.internal.Json;

/**
 * The last callback failure of a task.
 *
 * @param message what went wrong
 * @param statusCode the HTTP status the callback answered, or null when it did not answer
 */
public record TaskError(String message, Integer statusCode) {
  static TaskError from(JsonNode node) {
    if (node == null || node.isNull()) {
      return null;
    }
    return new TaskError(Json.text(node, "message"), Json.integer(node, "statusCode"));
  }
}
