/**
 * A schedule as Temporal is given it: the checked timing (spec.ts), the task of each occurrence as a
 * one-shot create builds it (marked as a schedule's), the search attributes lists filter on, and the
 * definition as the client gave it (kept in the action's memo, which an update can change).
 */
import { deliveryLabel } from '../tasks/start-options.js';
import type { ScheduleActionWithPriority } from '../temporal/sdk-knowledge.js';
import type { CreateScheduleBody, OverlapPolicy, UpdateScheduleBody } from '../contract/schedules.js';
import { CATCHUP_WINDOW } from '../shared/limits.js';
import { SEARCH_ATTRIBUTES, TASK_WORKFLOW_TYPE } from '../shared/constants.js';
import { workflowIdOf } from '../shared/owner.js';
import type { TaskSpec } from '../shared/task.js';
import { digest } from '../tasks/fingerprint.js';
import { parseRfc3339 } from '../tasks/input.js';
import type { Timing } from './spec.js';

/** The timing and policies as the client gave them, defaults applied: what a schedule's view shows. */
export interface Definition {
  cron: string | null;
  every: string | null;
  phase: string | null;
  timeZone: string;
  startAt: string | null;
  endAt: string | null;
  maxRuns: number | null;
  jitter: string | null;
  overlap: OverlapPolicy;
  catchupWindow: string;
  pauseOnFailure: boolean;
}

const iso = (text: string | undefined | null) => {
  const at = text == null ? undefined : parseRfc3339(text);
  return at === undefined ? null : new Date(at).toISOString();
};

export function definitionOf(timing: Timing): Definition {
  return {
    cron: timing.cron ?? null,
    every: timing.every ?? null,
    phase: timing.phase ?? null,
    timeZone: timing.timeZone ?? 'UTC',
    startAt: iso(timing.startAt),
    endAt: iso(timing.endAt),
    maxRuns: timing.maxRuns ?? null,
    jitter: timing.jitter ?? null,
    overlap: timing.overlap ?? 'skip',
    catchupWindow: timing.catchupWindow ?? CATCHUP_WINDOW.default,
    pauseOnFailure: timing.pauseOnFailure ?? false,
  };
}

/** A definition back as the timing fields of a body (null: absent). */
export function timingOf(definition: Definition): Timing {
  const timing: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(definition)) if (value !== null) timing[field] = value;
  return timing as Timing;
}

/** The definition after an update: the fields given replace; cron and every exclude each other. */
export function updatedDefinition(current: Definition, body: UpdateScheduleBody): Definition {
  const { task: _task, ...fields } = body;
  const next = { ...current } as Record<string, unknown>;
  for (const [field, value] of Object.entries(fields)) if (value !== undefined) next[field] = value;
  if (body.cron !== undefined) Object.assign(next, { every: null, phase: null });
  if (body.every !== undefined) next.cron = null;
  return definitionOf(timingOf(next as unknown as Definition));
}

/** What makes two creates of one schedule id the same schedule. */
export function scheduleFingerprint(
  body: CreateScheduleBody,
  definition: Definition,
  taskFingerprint: string,
): string {
  return digest({ definition, task: taskFingerprint, paused: body.paused ?? false, note: body.note ?? null });
}

/** The Schedule's id in Temporal: the workflow id rule of tasks (owner prefix but for `default`). */
export const temporalScheduleId = workflowIdOf;

/** The action every occurrence runs: the task's workflow, with its input marked as this schedule's. */
export function actionOf(
  owner: string,
  scheduleId: string,
  spec: TaskSpec,
  taskFingerprint: string,
  taskQueue: string,
  definition: Definition,
): ScheduleActionWithPriority {
  const input: TaskSpec = { ...spec, schedule: { scheduleId } };
  return {
    type: 'startWorkflow',
    workflowType: TASK_WORKFLOW_TYPE,
    // Temporal appends `-<nominal time>`: the occurrence's workflow id, so its task id.
    workflowId: workflowIdOf(owner, scheduleId),
    taskQueue,
    args: [input],
    // Workflow tasks of a saturated type wait on the server in priority order, as a one-shot task's.
    priority: { priorityKey: spec.priority },
    typedSearchAttributes: [
      { key: SEARCH_ATTRIBUTES.owner, value: owner },
      { key: SEARCH_ATTRIBUTES.taskType, value: spec.taskType },
      { key: SEARCH_ATTRIBUTES.taskStatus, value: 'SCHEDULED' },
    ],
    memo: {
      specHash: taskFingerprint,
      ...(spec.callbackUrl !== undefined && { callbackUrl: spec.callbackUrl }),
      ...(spec.delivery && { deliveryMode: spec.delivery.mode }),
      priority: spec.priority,
      schedule: definition,
    },
    staticSummary: `${spec.taskType} → ${deliveryLabel(spec)}, occurrence of schedule ${scheduleId}`,
  };
}

/** Search attributes of the Schedule itself: the list filters by owner and task type. */
export function scheduleSearchAttributes(owner: string, taskType: string) {
  return [
    { key: SEARCH_ATTRIBUTES.owner, value: owner },
    { key: SEARCH_ATTRIBUTES.taskType, value: taskType },
  ];
}
