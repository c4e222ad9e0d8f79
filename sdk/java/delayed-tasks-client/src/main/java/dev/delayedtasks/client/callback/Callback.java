package dev.delayedtasks.client.callback;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.delayedtasks.client.internal.Json;
import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;

/**
 * The body of a callback. Numbers in the payload are kept exactly as sent (integers as
 * int/long/BigInteger, fractions as BigDecimal).
 *
 * @param taskId the task's id, as its client gave it
 * @param taskType its type
 * @param payload the task's payload
 * @param payloadVersion version of the payload schema
 * @param executeAt when the task was due
 * @param attempt 1 for the first attempt
 * @param traceId the caller's trace id, or null
 * @param schedule the schedule and nominal time an occurrence runs for; null for a one-shot task
 */
public record Callback(
    String taskId,
    String taskType,
    ObjectNode payload,
    int payloadVersion,
    Instant executeAt,
    int attempt,
    String traceId,
    CallbackSchedule schedule) {

  /** A one-shot task's callback (no schedule). */
  public Callback(
      String taskId,
      String taskType,
      ObjectNode payload,
      int payloadVersion,
      Instant executeAt,
      int attempt,
      String traceId) {
    this(taskId, taskType, payload, payloadVersion, executeAt, attempt, traceId, null);
  }

  /**
   * Parses the raw body of a callback.
   *
   * @throws CallbackRejectedException with {@link RejectionReason#INVALID_BODY}
   */
  public static Callback parse(byte[] body) {
    JsonNode node;
    try {
      node = Json.parse(body);
    } catch (IOException e) {
      throw invalid("not JSON", e);
    }
    if (!node.isObject()) {
      throw invalid("not a JSON object", null);
    }
    JsonNode payload = node.get("payload");
    if (payload == null || !payload.isObject()) {
      throw invalid("payload is not an object", null);
    }
    JsonNode traceId = node.get("traceId");
    if (traceId != null && !traceId.isNull() && !traceId.isTextual()) {
      throw invalid("traceId is not a string", null);
    }
    Instant executeAt;
    try {
      executeAt = Json.parseTime(requireText(node, "executeAt"));
    } catch (DateTimeParseException e) {
      throw invalid("executeAt is not an RFC 3339 time", e);
    }
    return new Callback(
        requireText(node, "taskId"),
        requireText(node, "taskType"),
        (ObjectNode) payload,
        requireInt(node, "payloadVersion"),
        executeAt,
        requireInt(node, "attempt"),
        traceId == null || traceId.isNull() ? null : traceId.asText(),
        schedule(node.get("schedule")));
  }

  private static CallbackSchedule schedule(JsonNode node) {
    if (node == null || node.isNull()) {
      return null;
    }
    if (!node.isObject()) {
      throw invalid("schedule is not an object", null);
    }
    try {
      return new CallbackSchedule(
          requireText(node, "scheduleId"), Json.parseTime(requireText(node, "scheduledAt")));
    } catch (DateTimeParseException e) {
      throw invalid("schedule.scheduledAt is not an RFC 3339 time", e);
    }
  }

  /** The payload bound to a type with Jackson (e.g. a record of the task type's fields). */
  public <T> T payloadAs(Class<T> type) {
    try {
      return Json.MAPPER.treeToValue(payload, type);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("payload does not fit " + type.getName(), e);
    }
  }

  private static String requireText(JsonNode node, String field) {
    JsonNode value = node.get(field);
    if (value == null || !value.isTextual()) {
      throw invalid(field + " is missing or not a string", null);
    }
    return value.asText();
  }

  private static int requireInt(JsonNode node, String field) {
    JsonNode value = node.get(field);
    if (value == null || !value.isIntegralNumber() || !value.canConvertToInt()) {
      throw invalid(field + " is missing or not an integer", null);
    }
    return value.intValue();
  }

  private static CallbackRejectedException invalid(String message, Throwable cause) {
    return new CallbackRejectedException(RejectionReason.INVALID_BODY, message, cause);
  }
}
