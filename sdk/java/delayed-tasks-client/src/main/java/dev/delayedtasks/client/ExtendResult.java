package dev.delayedtasks.client;

import java.time.Instant;

/**
 * What {@link DelayedTasksClient#extend} answers: the lease now runs until {@code leaseExpiresAt}.
 */
public record ExtendResult(Instant leaseExpiresAt) {}
