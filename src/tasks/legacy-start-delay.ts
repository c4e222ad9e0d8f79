/**
 * The retired start delay (TASK_START_DELAY; docs/architecture.md, "Start delay (retired)"): every
 * path that serves a task an earlier version started with a start delay, in one place. Such a task's
 * workflow has not run before its due time, so the server refuses or holds its status query, and a
 * plain cancel signal would wait in its history.
 *
 * Everything that knows of it is here. Its callers ask it without knowing what it does:
 * - `TaskReader.lookup` (src/tasks/reader.ts) hands it a status read the server refused
 *   (`whenRefused`) or held past its patience (`whenHeld`), and takes the task it reads instead;
 * - `TaskCommands.cancel` (src/tasks/commands.ts) sends its cancel through `sendCancel`;
 * - the server's refusal text is pinned with the SDK's other internals in
 *   src/temporal/sdk-knowledge.ts (`NOT_STARTED_YET`), read only here.
 * Remove this module, those three uses and the pinned text once no such task can still be waiting:
 * `NO_WAITING_TASK_AFTER`, which test/unit/tasks/legacy-start-delay.test.ts enforces.
 */
import type { WorkflowExecutionDescription } from '@temporalio/client';
import proto from '@temporalio/proto';
import { TASK_WORKFLOW_TYPE } from '../shared/constants.js';
import { workflowQueueOf } from '../shared/task-queues.js';
import { initialTaskState, type CancelRequest, type TaskSpec, type TaskState } from '../shared/task.js';
import type { TemporalCalls } from '../temporal/calls.js';
import { isFailedPrecondition } from '../temporal/errors.js';
import { NOT_STARTED_YET } from '../temporal/sdk-knowledge.js';
import { cancelSignal } from '../workflows/delayed-task.js';
import { fingerprintOf } from './fingerprint.js';
import { taskStartOptions } from './start-options.js';
import { timestampIso } from './views.js';

const { EventType } = proto.temporal.api.enums.v1;

/** The version that retired the start delay: no task is started with one from this day on. */
export const START_DELAY_RETIRED_ON = '2026-12-04';

/**
 * After this instant no task started with a start delay can still be waiting: a task is due at most
 * `MAX_SCHEDULE_AHEAD_SECONDS` (90 days by default) after its start, and its workflow runs when it
 * is due. A deployment that upgraded later, or allows a longer horizon, moves this date to its own.
 */
export const NO_WAITING_TASK_AFTER = '2027-03-05T00:00:00Z';

/** A task whose workflow waits out its start delay, as its start input and history say. */
export interface WaitingTask {
  state: TaskState;
  waiting: TaskSpec;
}

/**
 * A query to a workflow that has not run its first workflow task yet: one started with a start delay
 * that is not due. The server answers FAILED_PRECONDITION without asking a worker.
 */
export function isNotStartedYet(err: unknown): boolean {
  if (!isFailedPrecondition(err)) return false;
  for (let current = err, depth = 0; current && depth < 5; depth++) {
    if (current instanceof Error && NOT_STARTED_YET.test(current.message)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * Where a status read of a task asks whether the task waits out a start delay, and reads it from its
 * history if so. Each answer is undefined for every other task.
 */
export class StartDelayFallback {
  constructor(
    private readonly temporal: TemporalCalls,
    private readonly now: () => number,
  ) {}

  /**
   * The query was held past the reader's patience: the server holds it until the first workflow
   * task when the delay ends within the query's deadline, so a GET or a cancel would otherwise wait
   * for the due time (and a cancel would come after the fire).
   */
  async whenHeld(
    description: WorkflowExecutionDescription,
    workflowId: string,
    taskId: string,
  ): Promise<WaitingTask | undefined> {
    if (!startDelayPending(description, this.now())) return undefined;
    return readWaitingTask(this.temporal, workflowId, taskId, this.now());
  }

  /**
   * The query was refused. Rethrows what is not a start delay's refusal; `'again'` when a workflow
   * task has been scheduled since (the caller asks the workflow again).
   */
  async whenRefused(err: unknown, workflowId: string, taskId: string): Promise<WaitingTask | 'again'> {
    if (!isNotStartedYet(err)) throw err;
    return (await readWaitingTask(this.temporal, workflowId, taskId, this.now())) ?? 'again';
  }
}

/** An open run whose start delay is not over: no workflow task has been scheduled yet. */
export function startDelayPending(description: WorkflowExecutionDescription, nowMs: number): boolean {
  return (
    description.status.name === 'RUNNING' &&
    description.executionTime !== undefined &&
    description.executionTime.getTime() > nowMs
  );
}

/**
 * A task whose workflow has not run yet: SCHEDULED as its start input says, or CANCELLED once a
 * `cancel` signal or a cancel request is in its history (the workflow will honour it before anything
 * else when it runs, and never call back). Undefined once a workflow task has been scheduled.
 */
export async function readWaitingTask(
  temporal: TemporalCalls,
  workflowId: string,
  taskId: string,
  nowMs: number,
): Promise<WaitingTask | undefined> {
  const events = await temporal.history({ workflowId }, 100, taskId);
  // The workflow has run after all (a signal-with-start, an update): its own answer counts.
  if (events.some((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED)) return undefined;
  const spec = await temporal.startInput<TaskSpec>(events, workflowId, taskId);
  const state = initialTaskState(spec);
  const cancel = events.find(
    (event) =>
      event.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCEL_REQUESTED ||
      (event.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED &&
        event.workflowExecutionSignaledEventAttributes?.signalName === cancelSignal.name),
  );
  if (cancel) {
    state.status = 'CANCELLED';
    state.completedAt = timestampIso(cancel.eventTime) ?? new Date(nowMs).toISOString();
  }
  return { state, waiting: spec };
}

/**
 * Sends a task's `cancel` signal. A task still waiting out its start delay (`waiting`: its input) is
 * cancelled at once: a plain signal would wait in its history until the due time; signal-with-start
 * runs the workflow now (a closed run is not restarted), and the workflow settles the task CANCELLED
 * before anything else.
 */
export function sendCancel(
  temporal: TemporalCalls,
  workflowId: string,
  waiting: TaskSpec | undefined,
  baseQueue: string,
  request: CancelRequest,
): Promise<unknown> {
  if (!waiting) return temporal.client.workflow.getHandle(workflowId).signal(cancelSignal, request);
  return temporal.client.workflow.signalWithStart(TASK_WORKFLOW_TYPE, {
    ...taskStartOptions(
      waiting,
      fingerprintOf(waiting),
      workflowQueueOf(waiting, baseQueue),
      'REJECT_DUPLICATE',
    ),
    signal: cancelSignal,
    signalArgs: [request],
  });
}
