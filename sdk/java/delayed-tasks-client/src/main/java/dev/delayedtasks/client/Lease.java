package dev.delayedtasks.client;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayedtasks.client.internal.Json;
import java.time.Instant;

/**
 * One task leased by {@link DelayedTasksClient#lease}: ack, nack, extend or release it with the
 * token before {@code leaseExpiresAt}.
 */
public record Lease(String leaseToken, Instant leaseExpiresAt, LeasedTask task) {
  static Lease from(JsonNode node) {
    Instant expires = Json.time(node, "leaseExpiresAt");
    return new Lease(
        Json.text(node, "leaseToken"), expires, LeasedTask.from(node.path("task"), expires));
  }
}
