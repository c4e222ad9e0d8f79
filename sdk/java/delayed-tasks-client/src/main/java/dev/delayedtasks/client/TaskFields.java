package dev.delayedtasks.client;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The task settings a create and a schedule's task share, set by their builders and written to the
 * wire once, in the wire order. Package-private: the requests expose it through their builders.
 */
final class TaskFields {
  String taskType;
  Object payload;
  String callbackUrl;
  Delivery delivery;
  Integer maxRetries;
  Integer timeoutMs;
  Integer payloadVersion;
  String traceId;
  Integer priority;

  /** A copy, so a built request does not change when its builder is used again. */
  TaskFields copy() {
    TaskFields copy = new TaskFields();
    copy.taskType = taskType;
    copy.payload = payload;
    copy.callbackUrl = callbackUrl;
    copy.delivery = delivery;
    copy.maxRetries = maxRetries;
    copy.timeoutMs = timeoutMs;
    copy.payloadVersion = payloadVersion;
    copy.traceId = traceId;
    copy.priority = priority;
    return copy;
  }

  /** A schedule's task: the wire object with only the fields that were set; no time, no id. */
  ObjectNode toBody(String payloadField) {
    return toBody(payloadField, false, null, null);
  }

  /** A create: the task's fields, its time (required) and its id, in the wire order. */
  ObjectNode toBody(String payloadField, When when, String taskId) {
    return toBody(payloadField, true, when, taskId);
  }

  /**
   * The wire object with only the fields that were set. Checks first: the payload (named {@code
   * payloadField} in an error), then the time when the request has one.
   */
  private ObjectNode toBody(String payloadField, boolean timed, When when, String taskId) {
    ObjectNode payloadNode = Payloads.toObject(payloadField, payload);
    if (callbackUrl != null && delivery != null) {
      throw DelayedTaskException.invalidArgument(
          timed ? "delivery" : "task.delivery", "give either callbackUrl or delivery, not both");
    }
    if (timed) {
      When.check(when, true);
    }
    ObjectNode body = Payloads.newObject();
    if (taskType != null) {
      body.put("taskType", taskType);
    }
    body.set("payload", payloadNode);
    if (when != null) {
      when.writeTo(body);
    }
    if (callbackUrl != null) {
      body.put("callbackUrl", callbackUrl);
    }
    if (delivery != null) {
      body.set("delivery", delivery.toBody());
    }
    if (taskId != null) {
      body.put("taskId", taskId);
    }
    Payloads.putIfSet(body, "maxRetries", maxRetries);
    Payloads.putIfSet(body, "timeoutMs", timeoutMs);
    Payloads.putIfSet(body, "payloadVersion", payloadVersion);
    if (traceId != null) {
      body.put("traceId", traceId);
    }
    Payloads.putIfSet(body, "priority", priority);
    return body;
  }
}
