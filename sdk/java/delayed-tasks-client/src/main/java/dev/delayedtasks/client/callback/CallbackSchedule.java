package dev.delayedtasks.client.callback;

import java.time.Instant;

/**
 * The schedule an occurrence runs for, as {@link Callback#schedule()} carries it.
 *
 * @param scheduleId the schedule's id
 * @param scheduledAt the nominal time the occurrence runs for (before jitter; for a backfill, the
 *     past run time)
 */
public record CallbackSchedule(String scheduleId, Instant scheduledAt) {}
