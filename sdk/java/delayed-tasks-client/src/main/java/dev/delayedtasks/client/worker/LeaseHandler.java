package dev.delayedtasks.client.worker;

import dev.delayedtasks.client.LeasedTask;

/**
 * Handles one leased task: return to ack; throw {@link
 * dev.delayedtasks.client.callback.PermanentException} to dead-letter the task, anything else to
 * have it retried with its backoff.
 */
@FunctionalInterface
public interface LeaseHandler {
  void handle(LeasedTask task) throws Exception;
}
