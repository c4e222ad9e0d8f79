package dev.delayedtasks.client;

/**
 * What {@link DelayedTasksClient#ack}, {@link DelayedTasksClient#nack} and {@link
 * DelayedTasksClient#release} answer: the task and its status now ({@code SUCCEEDED} after an ack;
 * {@code RUNNING} or {@code FAILED} after a nack; {@code RUNNING} after a release).
 */
public record LeaseResult(String taskId, TaskStatus status) {}
