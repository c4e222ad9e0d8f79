/**
 * A schedule as the wire contract shows it, from Temporal's description of it: the definition as
 * given (the action's memo), the task (the action's input), the next run times and the recent
 * occurrences as Temporal lists them, with each occurrence's status from visibility.
 */
import type { ScheduleDescription } from '@temporalio/client';
import type { Schedule, ScheduleOccurrence, ScheduleSummary } from '../contract/schedules.js';
import { SCHEDULE_NEXT_RUNS, SCHEDULE_RECENT_OCCURRENCES } from '../shared/limits.js';
import { parseWorkflowId } from '../shared/owner.js';
import { nominalTimeOfWorkflowId } from '../shared/schedule.js';
import type { TaskSpec, TaskStatus } from '../shared/task.js';
import type { Definition } from './input.js';

/** What a description of one of our schedules holds; undefined for any other schedule. */
export interface Described {
  description: ScheduleDescription;
  definition: Definition;
  spec: TaskSpec;
}

export function describedOf(description: ScheduleDescription): Described | undefined {
  const definition = description.action.memo?.schedule as Definition | undefined;
  const spec = description.action.args?.[0] as TaskSpec | undefined;
  if (!definition || !spec?.schedule) return undefined;
  return { description, definition, spec };
}

/** The recent occurrences, oldest first, with their workflow ids (for their statuses). */
export function recentOccurrences(
  description: ScheduleDescription,
): Array<Omit<ScheduleOccurrence, 'status'> & { workflowId: string }> {
  return description.info.recentActions.slice(-SCHEDULE_RECENT_OCCURRENCES).map((action) => {
    const { workflowId } = action.action.workflow;
    return {
      workflowId,
      taskId: parseWorkflowId(workflowId).taskId,
      // The id names the nominal time; Temporal's `scheduledAt` includes the jitter.
      scheduledAt: nominalTimeOfWorkflowId(workflowId) ?? action.scheduledAt.toISOString(),
      startedAt: action.takenAt.toISOString(),
    };
  });
}

export function toSchedule(
  { description, definition, spec }: Described,
  owner: string,
  statuses: ReadonlyMap<string, TaskStatus>,
): Schedule {
  const { state, info } = description;
  return {
    scheduleId: spec.schedule!.scheduleId,
    owner,
    ...definition,
    remainingRuns: state.remainingActions ?? null,
    paused: state.paused,
    note: state.note ? state.note : null,
    task: {
      taskType: spec.taskType,
      payload: spec.payload,
      payloadVersion: spec.payloadVersion,
      callbackUrl: spec.callbackUrl,
      ...(spec.delivery && { delivery: spec.delivery }),
      maxRetries: spec.maxRetries,
      timeoutMs: spec.timeoutMs,
      traceId: spec.traceId,
      priority: spec.priority,
    },
    nextRunTimes: info.nextActionTimes.slice(0, SCHEDULE_NEXT_RUNS).map((time) => time.toISOString()),
    recentOccurrences: recentOccurrences(description).map(({ workflowId, ...occurrence }) => ({
      ...occurrence,
      status: statuses.get(workflowId) ?? null,
    })),
    occurrencesStarted: info.numActionsTaken,
    skippedByOverlap: info.numActionsSkippedOverlap,
    missedCatchupWindow: info.numActionsMissedCatchupWindow,
    createdAt: info.createdAt.toISOString(),
    updatedAt: info.lastUpdatedAt?.toISOString() ?? null,
  };
}

export function toSummary(schedule: Schedule): ScheduleSummary {
  return {
    scheduleId: schedule.scheduleId,
    owner: schedule.owner,
    taskType: schedule.task.taskType,
    cron: schedule.cron,
    every: schedule.every,
    timeZone: schedule.timeZone,
    paused: schedule.paused,
    note: schedule.note,
    nextRunTime: schedule.nextRunTimes[0] ?? null,
  };
}
