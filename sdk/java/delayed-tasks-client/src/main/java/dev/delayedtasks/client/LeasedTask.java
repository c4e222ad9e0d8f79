package dev.delayedtasks.client;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.delayedtasks.client.internal.Json;
import java.time.Instant;

/**
 * A task a worker leased: what its handler gets.
 *
 * @param idempotencyKey the same on every attempt, after a replay too: the key to dedupe on
 * @param scheduleId the schedule of an occurrence, else null
 * @param scheduledAt the occurrence's nominal time, else null
 * @param leaseExpiresAt when the lease runs out unless extended (the worker extends it)
 */
public record LeasedTask(
    String taskId,
    String taskType,
    String queue,
    JsonNode payload,
    int payloadVersion,
    Instant executeAt,
    int attempt,
    String idempotencyKey,
    String traceId,
    String scheduleId,
    Instant scheduledAt,
    Instant leaseExpiresAt) {

  /** The payload bound to a type with Jackson. */
  public <T> T payloadAs(Class<T> type) {
    try {
      return Json.MAPPER.treeToValue(payload, type);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("payload does not fit " + type.getName(), e);
    }
  }

  static LeasedTask from(JsonNode task, Instant leaseExpiresAt) {
    JsonNode schedule = task.path("schedule");
    return new LeasedTask(
        Json.text(task, "taskId"),
        Json.text(task, "taskType"),
        Json.text(task, "queue"),
        task.path("payload"),
        task.path("payloadVersion").asInt(1),
        Json.time(task, "executeAt"),
        task.path("attempt").asInt(1),
        Json.text(task, "idempotencyKey"),
        Json.text(task, "traceId"),
        schedule.isObject() ? Json.text(schedule, "scheduleId") : null,
        schedule.isObject() ? Json.time(schedule, "scheduledAt") : null,
        leaseExpiresAt);
  }
}
