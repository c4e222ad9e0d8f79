package dev.delayedtasks.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.delayedtasks.client.internal.Json;
import dev.delayedtasks.client.internal.PayloadCheck;
import dev.delayedtasks.client.internal.Reasons;

/** Turns caller payloads into checked JSON objects. */
final class Payloads {
  private Payloads() {}

  static ObjectNode newObject() {
    return Json.MAPPER.createObjectNode();
  }

  /** The payload as an object tree, or INVALID_ARGUMENT with the path of the first bad value. */
  static ObjectNode toObject(String field, Object payload) {
    if (payload == null) {
      throw DelayedTaskException.invalidArgument(field, Reasons.NOT_AN_OBJECT);
    }
    JsonNode tree;
    try {
      tree = payload instanceof JsonNode node ? node : Json.MAPPER.valueToTree(payload);
    } catch (IllegalArgumentException e) {
      throw DelayedTaskException.invalidArgument(field, Reasons.NOT_AN_OBJECT, e);
    }
    if (tree == null || !tree.isObject()) {
      throw DelayedTaskException.invalidArgument(field, Reasons.NOT_AN_OBJECT);
    }
    PayloadCheck.find(tree, field)
        .ifPresent(
            problem -> {
              throw DelayedTaskException.invalidArgument(problem.field(), problem.reason());
            });
    return (ObjectNode) tree;
  }

  static void putIfSet(ObjectNode body, String field, Integer value) {
    if (value != null) {
      body.put(field, value);
    }
  }
}
