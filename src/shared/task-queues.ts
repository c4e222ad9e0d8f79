/**
 * Task-queue names: the one module that decides them. Every queue of this service hangs off one base
 * queue (`TASK_QUEUE`, `delayed-tasks` by default):
 *
 * - `<base>`: the shared queue, where tasks started before workflow shape v2 run until they end;
 * - `<base>.callbacks.<policy>`: one queue per task-type policy (`_default` for undeclared types). Its
 *   worker runs the type's workflows started since v2 with their callbacks as local activities, and
 *   the regular callback activities of rate-limited types and of pre-v2 tasks (workflow tasks and
 *   activity tasks of one name are separate queues in Temporal).
 * - `<base>.pull/<owner>/<queue>`: a pull queue of one owner (docs/workers.md). No worker of ours polls
 *   it: a pull task's lease activity waits there until the API's lease route polls it for a consumer.
 *   Owners and queue names cannot hold `/`, so no two owners' queues share a name.
 *
 * Workflow-safe: no Node built-ins.
 */
import type { TaskSpec } from './task.js';

/** The base queue, unless `TASK_QUEUE` says otherwise. */
export const DEFAULT_TASK_QUEUE = 'delayed-tasks';

/** The queue of one task-type policy under a base queue. */
export function typeQueue(baseQueue: string, policyName: string): string {
  return `${typeQueuePrefix(baseQueue)}${policyName}`;
}

/** Prefix shared by every type queue under a base queue: visibility finds the tasks on all of them. */
export function typeQueuePrefix(baseQueue: string): string {
  return `${baseQueue}.callbacks.`;
}

/** Where a new task runs, as its start and its workflow input carry it. */
export interface TaskRouting {
  /** The queue its workflow starts on. */
  workflowTaskQueue: string;
  /** The queue of its callback activity (`TaskSpec.callbackTaskQueue`). */
  callbackTaskQueue: string;
  /** Workflow shape v2: the callback as a local activity (`TaskSpec.localCallback`). */
  localCallback: boolean;
}

/**
 * Where a new task of a policy runs (workflow shape v2): its workflow on the type's own queue, and
 * its callback as a local activity there, unless the type has a `ratePerSecond`: the server's rate
 * limit only counts regular activities, so those keep them on the type queue as regular activities.
 */
export function routeNewTask(
  baseQueue: string,
  policy: { readonly name: string; readonly ratePerSecond?: number | undefined },
): TaskRouting {
  const queue = typeQueue(baseQueue, policy.name);
  return {
    workflowTaskQueue: queue,
    callbackTaskQueue: queue,
    localCallback: policy.ratePerSecond === undefined,
  };
}

/**
 * The workflow queue of an existing task's input: its type queue for inputs written since workflow
 * shape v2 (they carry `localCallback`), the shared base queue for older ones.
 */
export function workflowQueueOf(
  spec: Pick<TaskSpec, 'localCallback' | 'callbackTaskQueue'>,
  baseQueue: string,
): string {
  return spec.localCallback === undefined ? baseQueue : spec.callbackTaskQueue;
}

/** The Temporal task queue of one owner's pull queue. */
export function pullQueue(baseQueue: string, owner: string, queue: string): string {
  return `${baseQueue}.pull/${owner}/${queue}`;
}
