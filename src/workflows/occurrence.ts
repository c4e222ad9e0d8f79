/**
 * An occurrence of a schedule: a task input marked with a schedule (src/shared/schedule.ts) becomes
 * the occurrence's own task, from what Temporal recorded at its start (its workflow id, the nominal
 * time the Schedule set as a search attribute, its start time). Reading these issues no command.
 *
 * Only inputs written by a schedule carry the mark, and every such run takes this path from its first
 * workflow task: no recorded history of a one-shot task changes (test/replay).
 */
import { proxySinks, upsertMemo, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import { SCHEDULE_SEARCH_ATTRIBUTES, SEARCH_ATTRIBUTES } from '../shared/constants.js';
import { occurrenceSpec, startsOccurrence } from '../shared/schedule.js';
import type { TaskSinks } from '../shared/sinks.js';
import type { TaskSpec } from '../shared/task.js';

const { taskMetrics } = proxySinks<TaskSinks>();

/** The task this run is: the input itself, or for a schedule's occurrence, the occurrence's task. */
export function taskOfRun(spec: TaskSpec): TaskSpec {
  if (!startsOccurrence(spec)) return spec;
  const info = workflowInfo();
  return occurrenceSpec(spec, {
    workflowId: info.workflowId,
    scheduledAt: nominalTime(info),
    startedAt: info.startTime.toISOString(),
  });
}

/**
 * What the list shows of an occurrence that its schedule's action could not set (the action is the
 * same for every occurrence): its due time and creation time.
 */
export function recordOccurrence(spec: TaskSpec): void {
  upsertSearchAttributes([{ key: SEARCH_ATTRIBUTES.executeAt, value: new Date(spec.executeAt) }]);
  upsertMemo({ executeAt: spec.executeAt, createdAt: spec.createdAt });
  // Not on replay (the worker's sink says so): each occurrence counts once.
  taskMetrics.occurrenceStarted(
    spec.taskType,
    (Date.parse(spec.createdAt) - Date.parse(spec.executeAt)) / 1000,
  );
}

/** The nominal time: the typed attribute, or as the server may send it without type metadata. */
function nominalTime(info: ReturnType<typeof workflowInfo>): string | undefined {
  const typed = info.typedSearchAttributes.get(SCHEDULE_SEARCH_ATTRIBUTES.scheduledStartTime);
  if (typed) return typed.toISOString();
  const raw = info.searchAttributes[SCHEDULE_SEARCH_ATTRIBUTES.scheduledStartTime.name]?.[0];
  if (raw instanceof Date) return raw.toISOString();
  return typeof raw === 'string' ? raw : undefined;
}
