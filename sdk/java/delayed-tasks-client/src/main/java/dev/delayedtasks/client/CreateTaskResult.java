package dev.delayedtasks.client;

/**
 * The answer to a create.
 *
 * @param task the task
 * @param created true when this call created it (201), false for an idempotent repeat (200)
 */
public record CreateTaskResult(Task task, boolean created) {}
