package dev.delayedtasks.client;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * How a due task reaches its service when it has no {@code callbackUrl}: pull delivery, leased by a
 * worker ({@link dev.delayedtasks.client.worker.PullWorker}) from a queue of its owner.
 *
 * @param queue the pull queue; null: the task's type
 * @param leaseSeconds the lease's length and what an extend renews; null: 60 (the server's bounds
 *     are 5 to 3600 by default)
 */
public record Delivery(String queue, Integer leaseSeconds) {
  /** Pull from the queue named like the task type, leases of 60 s. */
  public static Delivery pull() {
    return new Delivery(null, null);
  }

  /** Pull from {@code queue}, leases of {@code leaseSeconds}. */
  public static Delivery pull(String queue, int leaseSeconds) {
    return new Delivery(queue, leaseSeconds);
  }

  ObjectNode toBody() {
    ObjectNode body = Payloads.newObject().put("mode", "pull");
    if (queue != null) {
      body.put("queue", queue);
    }
    Payloads.putIfSet(body, "leaseSeconds", leaseSeconds);
    return body;
  }
}
