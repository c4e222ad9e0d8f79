/**
 * Occurrences of a schedule: how a task started by a Temporal Schedule knows which occurrence it is.
 * Pure and workflow-safe: the workflow derives its task from its own id and nominal time here, and
 * the API's reader does the same from the server's record, so both tell the same task.
 */
import { parseWorkflowId } from './owner.js';
import type { TaskSpec } from './task.js';

/** The suffix Temporal appends to the action's workflow id: `-` and the nominal time, to the second. */
const NOMINAL_SUFFIX = /-(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z)$/;

/** The nominal time an occurrence's workflow id names; undefined for any other id. */
export function nominalTimeOfWorkflowId(workflowId: string): string | undefined {
  const match = NOMINAL_SUFFIX.exec(workflowId);
  return match ? new Date(match[1]!).toISOString() : undefined;
}

/**
 * Whether a task id has the form of an occurrence's, `<scheduleId>-<nominal time>` (Temporal's own
 * naming of a Schedule's runs, which cannot be changed for the schedules that exist). Only a schedule
 * makes such ids: a create that took one would hold the occurrence's workflow id, and that run would
 * never start.
 */
export function hasOccurrenceForm(taskId: string): boolean {
  return NOMINAL_SUFFIX.test(taskId);
}

export interface OccurrenceFacts {
  /** The occurrence's workflow id: `<owner>/<scheduleId>-<nominal time>` (no owner prefix for `default`). */
  workflowId: string;
  /** Nominal time (the `TemporalScheduledStartTime` search attribute), RFC 3339. */
  scheduledAt: string | undefined;
  /** When the occurrence's workflow started, RFC 3339. */
  startedAt: string;
}

/**
 * Whether this input starts an occurrence: a schedule's action (marked with its schedule, no nominal
 * time yet). A replay of an occurrence carries the mark with its nominal time already resolved and
 * runs as the task it is, still naming its schedule and nominal time to the receiver.
 */
export function startsOccurrence(spec: TaskSpec): boolean {
  return spec.schedule !== undefined && spec.schedule.scheduledAt === undefined;
}

/**
 * The task an occurrence is: the schedule's task input with the occurrence's own id (its workflow id,
 * less the owner prefix), `Idempotency-Key` (its workflow id: stable across its retries, unique per
 * occurrence), due time (the nominal time, so it calls back at once) and creation time. Any input
 * that does not start an occurrence is returned unchanged.
 */
export function occurrenceSpec(spec: TaskSpec, facts: OccurrenceFacts): TaskSpec {
  if (!spec.schedule || !startsOccurrence(spec)) return spec;
  const scheduledAt =
    normalized(facts.scheduledAt) ?? nominalTimeOfWorkflowId(facts.workflowId) ?? facts.startedAt;
  const startedAt = normalized(facts.startedAt) ?? facts.startedAt;
  return {
    ...spec,
    taskId: parseWorkflowId(facts.workflowId).taskId,
    idempotencyKey: facts.workflowId,
    executeAt: scheduledAt,
    createdAt: startedAt,
    schedule: { scheduleId: spec.schedule.scheduleId, scheduledAt },
  };
}

function normalized(time: string | undefined): string | undefined {
  if (time === undefined) return undefined;
  const ms = Date.parse(time);
  return Number.isFinite(ms) ? new Date(ms).toISOString() : undefined;
}
