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
    Outcome outcome,
    Integer statusCode,
    String error) {

  /** How an attempt ended. */
  public enum Outcome {
    /** The callback answered 2xx. */
    SUCCEEDED,
    /** 408, 425, 429, 5xx, a timeout or a network error: retried. */
    RETRYABLE_ERROR,
    /** Another 4xx, a 3xx, or refused: the task failed. */
    PERMANENT_ERROR,
    /** The task was cancelled while the attempt ran. */
    CANCELLED,
    /** An outcome from a newer server. */
    UNKNOWN;

    static Outcome fromWire(String raw) {
      for (Outcome outcome : values()) {
        if (outcome.name().equals(raw)) {
          return outcome;
        }
      }
      return UNKNOWN;
    }
  }

  static TaskAttempt from(JsonNode node) {
    return new TaskAttempt(
        node.path("attempt").asInt(),
        Json.time(node, "startedAt"),
        Json.time(node, "finishedAt"),
        Outcome.fromWire(Json.text(node, "outcome")),
        Json.integer(node, "statusCode"),
        Json.text(node, "error"));
  }
}
