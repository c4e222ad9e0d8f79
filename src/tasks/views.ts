/**
 * A task as the wire contract shows it (src/contract/tasks.ts), from the workflow's state or from a
 * visibility row. The fields of a Task come from its schema, not from a hand copy: a field added to
 * the contract is carried as soon as the workflow's state has it, and the compiler says when not.
 */
import { defaultPayloadConverter } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { TaskSchema, type Task, type TaskSummary } from '../contract/tasks.js';
import { SEARCH_ATTRIBUTES } from '../shared/constants.js';
import { parseWorkflowId } from '../shared/owner.js';
import { ownerOf, TASK_STATUSES, type TaskError, type TaskState, type TaskStatus } from '../shared/task.js';

type Payload = temporal.api.common.v1.IPayload;

/**
 * Indexing the state by these fails to compile when the contract has a field the state lacks. The
 * lease is not the workflow's state: the server's record of the pending attempt says it (reader.ts).
 */
const TASK_FIELDS = Object.keys(TaskSchema.properties).filter((field) => field !== 'lease') as Exclude<
  keyof Task,
  'lease'
>[];

export function toTask(state: TaskState, lease?: Task['lease']): Task {
  const task: Record<string, unknown> = {};
  for (const field of TASK_FIELDS) {
    const value = field === 'owner' ? ownerOf(state) : state[field];
    if (value !== undefined) task[field] = value;
  }
  if (lease) task.lease = lease;
  return task as Task;
}

/** The task as its cancel signal settles it, for a workflow that reads the signal after its attempt. */
export function cancelledView(state: TaskState, now: number): TaskState {
  return { ...state, status: 'CANCELLED', nextAttemptAt: null, completedAt: new Date(now).toISOString() };
}

export function timestampIso(
  ts: { seconds?: unknown; nanos?: number | null } | null | undefined,
): string | null {
  return ts?.seconds != null
    ? new Date(Number(ts.seconds) * 1000 + Math.floor((ts.nanos ?? 0) / 1e6)).toISOString()
    : null;
}

export function eventTimeMs(event: temporal.api.history.v1.IHistoryEvent): number {
  const time = event.eventTime;
  return time?.seconds != null ? Number(time.seconds) * 1000 + Math.floor((time.nanos ?? 0) / 1e6) : 0;
}

function decode(payload: Payload | null | undefined): unknown {
  if (!payload) return undefined;
  try {
    return defaultPayloadConverter.fromPayload(payload);
  } catch {
    return undefined;
  }
}

/** A task in a list: what visibility holds of it (search attributes and memo, decoded). */
export function toTaskSummary(execution: temporal.api.workflow.v1.IWorkflowExecutionInfo): TaskSummary {
  const attributes = execution.searchAttributes?.indexedFields ?? {};
  const memo = execution.memo?.fields ?? {};
  const text = (value: unknown) => (typeof value === 'string' ? value : null);
  const first = (value: unknown) => (Array.isArray(value) ? value[0] : value);
  const status = text(first(decode(attributes[SEARCH_ATTRIBUTES.taskStatus.name])));
  const executeAt =
    text(first(decode(attributes[SEARCH_ATTRIBUTES.executeAt.name]))) ?? text(decode(memo.executeAt));
  const priority = decode(memo.priority);
  const attempts = decode(memo.attempts);
  const { owner, taskId } = parseWorkflowId(execution.execution?.workflowId ?? '');
  return {
    taskId,
    owner,
    taskType: text(first(decode(attributes[SEARCH_ATTRIBUTES.taskType.name]))) ?? '',
    status: TASK_STATUSES.includes(status as TaskStatus) ? (status as TaskStatus) : 'SCHEDULED',
    executeAt: executeAt ? new Date(executeAt).toISOString() : null,
    createdAt: text(decode(memo.createdAt)),
    callbackUrl: text(decode(memo.callbackUrl)),
    ...(decode(memo.deliveryMode) === 'pull' && { deliveryMode: 'pull' as const }),
    priority: typeof priority === 'number' ? priority : null,
    attempts: typeof attempts === 'number' ? attempts : 0,
    lastError: (decode(memo.lastError) as TaskError | null | undefined) ?? null,
    completedAt: text(decode(memo.completedAt)),
  };
}
