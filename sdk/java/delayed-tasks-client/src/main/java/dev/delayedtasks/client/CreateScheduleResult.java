package dev.delayedtasks.client;

/**
 * The answer of {@link DelayedTasksClient#createSchedule}.
 *
 * @param schedule the schedule
 * @param created false when the same schedule id and spec already existed (an idempotent repeat)
 */
public record CreateScheduleResult(Schedule schedule, boolean created) {}
