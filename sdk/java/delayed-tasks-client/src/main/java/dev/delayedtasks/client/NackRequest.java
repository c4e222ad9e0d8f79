package dev.delayedtasks.client;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * {@code POST /api/v1/leases/nack}: a failed attempt. Fields left null are not sent (the server's
 * defaults apply: retryable).
 *
 * @param retryable true (the default): the task's retry policy and backoff apply; false: dead
 *     letter at once
 * @param reason becomes the task's {@code lastError.message}; cut to 2,000 characters
 */
public record NackRequest(Boolean retryable, String reason) {
  private static final int MAX_REASON = 2000;

  /** Retried with the task's backoff. */
  public static NackRequest retryable(String reason) {
    return new NackRequest(true, reason);
  }

  /** Dead-lettered at once. */
  public static NackRequest permanent(String reason) {
    return new NackRequest(false, reason);
  }

  ObjectNode toBody(String leaseToken) {
    ObjectNode body = Payloads.newObject().put("leaseToken", leaseToken);
    if (retryable != null) {
      body.put("retryable", retryable);
    }
    if (reason != null) {
      body.put("reason", reason.length() > MAX_REASON ? reason.substring(0, MAX_REASON) : reason);
    }
    return body;
  }
}
