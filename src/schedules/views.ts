/**
 * A schedule as the wire contract shows it, from Temporal's description of it: the definition as
 * given (the action's memo), the task (the action's input), the next run times and the recent
 * occurrences as Temporal lists them, with each occurrence's status from visibility.
 */
import type { ScheduleDescription } from '@temporalio/client';
import { hasScope, type Principal } from '../auth/principal.js';
import { SCHEDULE_TASK_VIEW_FIELDS, type Schedule, type ScheduleOccurrence } from '../contract/schedules.js';
import { SCHEDULE_NEXT_RUNS, SCHEDULE_RECENT_OCCURRENCES } from '../shared/limits.js';
import { parseWorkflowId } from '../shared/owner.js';
import { nominalTimeOfWorkflowId } from '../shared/schedule.js';
import { initialTaskState, type TaskSpec, type TaskStatus } from '../shared/task.js';
import { toTask } from '../tasks/views.js';
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

/** The schedule's task as a Task of it would show it (`toTask`), cut to the fields a schedule shows. */
function scheduleTaskView(spec: TaskSpec): Schedule['task'] {
  const task = toTask(initialTaskState(spec));
  return Object.fromEntries(
    SCHEDULE_TASK_VIEW_FIELDS.map((field) => [field, task[field]]),
  ) as Schedule['task'];
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
    task: scheduleTaskView(spec),
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

/**
 * A schedule as `principal` may see it: its recent occurrences are tasks (their ids and statuses),
 * shown only with tasks:read; without it the list is empty, whatever else the key may see.
 */
export function withOccurrencesFor<T extends Pick<Schedule, 'recentOccurrences'>>(
  principal: Pick<Principal, 'scopes'>,
  schedule: T,
): T {
  return hasScope(principal, 'tasks:read') ? schedule : { ...schedule, recentOccurrences: [] };
}
