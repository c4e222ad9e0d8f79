package dev.delayedtasks.client;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayedtasks.client.internal.Json;
import java.time.Instant;

/**
 * One callback attempt of a task's current run.
 *
 * @param attempt 1 for the first attempt
 * @param startedAt when it started
 * @param finishedAt when it finished
 * @param outcome how it ended
 * @param statusCode the HTTP status the callback answered, or null when it did not answer
 * @param error why it failed, or null
 */
public record TaskAttempt(
    int attempt,
    Instant startedAt,
    Instant finishedAt,
    AttemptOutcome outcome,
    Integer statusCode,
    String error) {

  static TaskAttempt from(JsonNode node) {
    return new TaskAttempt(
        node.path("attempt").asInt(),
        Json.time(node, "startedAt"),
        Json.time(node, "finishedAt"),
        AttemptOutcome.fromWire(Json.text(node, "outcome")),
        Json.integer(node, "statusCode"),
        Json.text(node, "error"));
  }
}
