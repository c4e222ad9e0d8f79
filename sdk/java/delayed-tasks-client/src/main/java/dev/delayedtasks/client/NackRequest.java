package dev.delayedtasks.client;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * {@code POST /api/v1/leases/nack}: a failed attempt.
 *
 * @param retryable true: the task's retry policy and backoff apply; false: dead letter at once
 * @param reason becomes the task's {@code lastError.message} (at most 2,000 characters); may be
 *     null
 */
public record NackRequest(boolean retryable, String reason) {
  /** Retried with the task's backoff. */
  public static NackRequest retryable(String reason) {
    return new NackRequest(true, reason);
  }

  /** Dead-lettered at once. */
  public static NackRequest permanent(String reason) {
    return new NackRequest(false, reason);
  }

  ObjectNode toBody(String leaseToken) {
    ObjectNode body =
        Payloads.newObject().put("leaseToken", leaseToken).put("retryable", retryable);
    if (reason != null) {
      body.put("reason", reason.length() > 2000 ? reason.substring(0, 2000) : reason);
    }
    return body;
  }
}
