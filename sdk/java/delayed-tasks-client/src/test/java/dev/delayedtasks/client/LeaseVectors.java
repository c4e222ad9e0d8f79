package dev.delayedtasks.client;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.delayedtasks.client.internal.Json;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** The lease verbs of conformance/pull/wire-vectors.json: calls and results as JSON. */
final class LeaseVectors {
  static final Set<String> OPERATIONS = Set.of("lease", "ack", "nack", "extend", "release");

  /** {@code lease}'s answer, told apart from other lists. */
  record Leases(List<Lease> leases) {}

  private LeaseVectors() {}

  static Object invoke(DelayedTasksClient client, String operation, JsonNode input) {
    Set<String> known =
        operation.equals("lease")
            ? Set.of("queues", "max", "waitSeconds", "workerIdentity")
            : operation.equals("nack")
                ? Set.of("leaseToken", "retryable", "reason")
                : Set.of("leaseToken");
    input.fieldNames().forEachRemaining(f -> assertTrue(known.contains(f), "unknown input " + f));
    String token = input.path("leaseToken").asText();
    return switch (operation) {
      case "lease" -> {
        LeaseRequest.Builder b = LeaseRequest.builder();
        List<String> queues = new ArrayList<>();
        input.path("queues").forEach(q -> queues.add(q.asText()));
        b.queues(queues);
        if (input.has("max")) {
          b.max(input.get("max").asInt());
        }
        if (input.has("waitSeconds")) {
          b.waitSeconds(input.get("waitSeconds").asInt());
        }
        if (input.has("workerIdentity")) {
          b.workerIdentity(input.get("workerIdentity").asText());
        }
        yield new Leases(client.lease(b.build()));
      }
      case "ack" -> client.ack(token);
      case "nack" ->
          client.nack(
              token,
              new NackRequest(
                  input.has("retryable") ? input.get("retryable").asBoolean() : null,
                  input.hasNonNull("reason") ? input.get("reason").asText() : null));
      case "extend" -> client.extend(token);
      case "release" -> client.release(token);
      default -> throw new AssertionError(operation);
    };
  }

  static boolean handles(Object result) {
    return result instanceof Leases
        || result instanceof ExtendResult
        || result instanceof LeaseResult;
  }

  static JsonNode toJson(Object result) {
    JsonNodeFactory f = JsonNodeFactory.instance;
    if (result instanceof LeaseResult r) {
      return f.objectNode().put("taskId", r.taskId()).put("status", r.status().name());
    }
    if (result instanceof ExtendResult e) {
      return f.objectNode().put("leaseExpiresAt", Json.formatTime(e.leaseExpiresAt()));
    }
    ArrayNode out = f.arrayNode();
    for (Lease lease : ((Leases) result).leases()) {
      ObjectNode node = out.addObject();
      node.put("leaseToken", lease.leaseToken());
      node.put("leaseExpiresAt", Json.formatTime(lease.leaseExpiresAt()));
      LeasedTask t = lease.task();
      ObjectNode task = node.putObject("task");
      task.put("taskId", t.taskId()).put("taskType", t.taskType()).put("queue", t.queue());
      task.set("payload", t.payload());
      task.put("payloadVersion", t.payloadVersion());
      task.put("executeAt", Json.formatTime(t.executeAt()));
      task.put("attempt", t.attempt());
      task.put("idempotencyKey", t.idempotencyKey());
      task.put("traceId", t.traceId());
      if (t.scheduleId() == null) {
        task.putNull("schedule");
      } else {
        task.putObject("schedule")
            .put("scheduleId", t.scheduleId())
            .put("scheduledAt", Json.formatTime(t.scheduledAt()));
      }
    }
    return out;
  }
}
