/**
 * Reading one task back. The workflow's status query answers, except in two cases where the server
 * would hold the query: a callback attempt holds the workflow task (shape v2 runs it as a local
 * activity), or a start delay keeps the workflow from running (src/tasks/legacy-start-delay.ts
 * reads those). Then the task is read from the server's record instead: its history (start input,
 * events) and memo. The only code that reads
 * histories; what it knows of the SDK's markers is in src/temporal/sdk-knowledge.ts.
 */
import type { WorkflowExecutionDescription, WorkflowHandle } from '@temporalio/client';
import proto, { type temporal } from '@temporalio/proto';
import { taskNotFound } from '../errors/catalog.js';
import { SCHEDULE_SEARCH_ATTRIBUTES, SEARCH_ATTRIBUTES, TASK_WORKFLOW_TYPE } from '../shared/constants.js';
import { workflowIdOf } from '../shared/owner.js';
import { occurrenceSpec } from '../shared/schedule.js';
import { initialTaskState, ownerOf, type TaskError, type TaskSpec, type TaskState } from '../shared/task.js';
import type { TemporalCalls } from '../temporal/calls.js';
import { toApiError } from '../temporal/errors.js';
import { LOCAL_ACTIVITY_MARKER } from '../temporal/sdk-knowledge.js';
import { statusQuery } from '../workflows/delayed-task.js';
import { StartDelayFallback } from './legacy-start-delay.js';
import { eventTimeMs, toTask } from './views.js';
import type { Task } from '../contract/tasks.js';

const { EventType, PendingActivityState } = proto.temporal.api.enums.v1;

function timestampMs(
  ts: { seconds?: unknown; nanos?: number | null } | null | undefined,
): number | undefined {
  return ts?.seconds != null ? Number(ts.seconds) * 1000 + Math.floor((ts.nanos ?? 0) / 1e6) : undefined;
}
type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/**
 * A task as it was found. `waiting`: its workflow has not run yet (start delay), with its input;
 * `busy`: read from the server's record while a callback attempt holds its workflow task.
 */
export interface Lookup {
  state: TaskState;
  waiting?: TaskSpec;
  busy?: boolean;
}

/**
 * How long a read waits for the workflow's own answer (its status query) before it looks whether the
 * workflow is busy with a callback attempt. Since workflow shape v2 an attempt runs as a local
 * activity inside a workflow task, and queries, signals and updates wait until that task ends (the
 * attempt's end, or the SDK's heartbeat of the task at 80% of its 10 s timeout).
 */
const BUSY_PATIENCE_MS = 250;

export class TaskReader {
  private readonly startDelay: StartDelayFallback;

  constructor(
    private readonly temporal: TemporalCalls,
    private readonly now: () => number,
  ) {
    this.startDelay = new StartDelayFallback(temporal, now);
  }

  /** The task `taskId` of `owner` as the API shows it; another owner's answers 404 as an absent one. */
  async task(owner: string, taskId: string): Promise<Task> {
    const state = await this.state(owner, taskId);
    return toTask(state, await this.lease(state));
  }

  /**
   * The lease of a pull task a worker holds now, from the server's record of its pending attempt
   * (the workflow keeps no lease state); undefined for any other task or when none is held.
   */
  async lease(state: TaskState): Promise<{ expiresAt: string; workerIdentity: string | null } | undefined> {
    if (!state.delivery || state.status !== 'RUNNING') return undefined;
    const handle = this.temporal.client.workflow.getHandle(workflowIdOf(ownerOf(state), state.taskId));
    const description = await this.temporal
      .call(() => handle.describe(), state.taskId)
      .catch(() => undefined);
    const pending = description?.raw.pendingActivities?.find(
      (activity) => activity.state === PendingActivityState.PENDING_ACTIVITY_STATE_STARTED,
    );
    if (!pending) return undefined;
    const since = timestampMs(pending.lastHeartbeatTime) ?? timestampMs(pending.lastStartedTime);
    // The attempt's heartbeat timeout is the task's leaseSeconds (src/workflows/delivery.ts).
    const timeout = state.delivery.leaseSeconds;
    if (since === undefined) return undefined;
    return {
      expiresAt: new Date(since + timeout * 1000).toISOString(),
      workerIdentity: pending.lastWorkerIdentity || null,
    };
  }

  /** The task `taskId` of `owner`; another owner's task answers 404 as an absent one does. */
  async state(owner: string, taskId: string): Promise<TaskState> {
    return (await this.lookup(owner, taskId)).state;
  }

  async lookup(owner: string, taskId: string): Promise<Lookup> {
    const workflowId = workflowIdOf(owner, taskId);
    const handle = this.temporal.client.workflow.getHandle(workflowId);
    const query = this.temporal.bounded(() => handle.query(statusQuery)).then((state): Lookup => ({ state }));
    let found: Lookup;
    try {
      found = await this.unlessBusy(
        query,
        handle,
        taskId,
        (state): Lookup => ({ state, busy: true }),
        (description) => this.startDelay.whenHeld(description, workflowId, taskId),
      );
    } catch (err) {
      const waiting = await this.startDelay.whenRefused(err, workflowId, taskId).catch((refusal: unknown) => {
        throw toApiError(refusal, taskId);
      });
      found = waiting === 'again' ? await this.lookup(owner, taskId) : waiting;
    }
    // The workflow id already says the owner; a workflow started by hand under such an id does not count.
    if (ownerOf(found.state) !== owner) throw taskNotFound(taskId);
    return found;
  }

  /**
   * `call`'s answer, unless it has not come after `BUSY_PATIENCE_MS` and the workflow turns out to be
   * busy with a callback attempt: then `whenBusy` of the task as the server's record shows it. Before
   * that, `whenHeld` may answer from the description (src/tasks/legacy-start-delay.ts does).
   */
  async unlessBusy<T>(
    call: Promise<T>,
    handle: WorkflowHandle,
    taskId: string,
    whenBusy: (state: TaskState) => T,
    whenHeld?: (description: WorkflowExecutionDescription) => Promise<T | undefined>,
  ): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const patience = new Promise<'busy?'>((resolve) => {
      timer = setTimeout(() => resolve('busy?'), BUSY_PATIENCE_MS);
      timer.unref();
    });
    try {
      const first = await Promise.race([call, patience]);
      if (first !== 'busy?') return first;
    } finally {
      clearTimeout(timer);
    }
    const description = await this.temporal.call(() => handle.describe(), taskId).catch(() => undefined);
    if (!description) return call;
    const held = whenHeld && (await whenHeld(description));
    if (held !== undefined) {
      call.catch(() => undefined); // held by the server: no longer needed
      return held;
    }
    const busy = await this.busyState(description, taskId).catch(() => undefined);
    if (!busy) return call;
    call.catch(() => undefined); // answered by now or abandoned: its outcome no longer matters
    return whenBusy(busy);
  }

  /**
   * The task while a workflow task of its open run is in flight past its due time: a callback attempt
   * running as a local activity (workflow shape v2). Read from the server's record: the input from the
   * start event, the due time, status RUNNING, the attempt in flight (one more than those recorded)
   * and the last error of the last retry (memo). Undefined in any other case (not due, closed, or no
   * workflow task in flight): the caller waits for the workflow's own answer then.
   */
  private async busyState(
    description: WorkflowExecutionDescription,
    taskId: string,
  ): Promise<TaskState | undefined> {
    if (description.status.name !== 'RUNNING' || description.type !== TASK_WORKFLOW_TYPE) return undefined;
    // A schedule's occurrence writes its due time with its first workflow task, which its first
    // attempt holds open: until then, its nominal time (set by the Schedule at start) is the due time.
    const due =
      description.typedSearchAttributes.get(SEARCH_ATTRIBUTES.executeAt) ??
      description.typedSearchAttributes.get(SCHEDULE_SEARCH_ATTRIBUTES.scheduledStartTime);
    const recorded = description.typedSearchAttributes.get(SEARCH_ATTRIBUTES.taskStatus);
    if (!due || due.getTime() > this.now() || (recorded !== 'SCHEDULED' && recorded !== 'RUNNING')) {
      return undefined;
    }
    const { workflowId, runId } = description;
    const events = await this.temporal.history({ workflowId, runId }, 1000, taskId);
    const inFlight = events.at(-1);
    // An attempt only runs in a workflow task that started at or after the due time: a slow workflow
    // task that started before it (a loaded worker) is still going to sleep, not calling back.
    if (
      inFlight?.eventType !== EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED ||
      eventTimeMs(inFlight) < due.getTime()
    ) {
      return undefined;
    }
    const spec = occurrenceSpec(await this.temporal.startInput<TaskSpec>(events, workflowId, taskId), {
      workflowId,
      scheduledAt: due.toISOString(),
      startedAt: description.startTime.toISOString(),
    });
    const firedAt = events.find(
      (event) =>
        event.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED && eventTimeMs(event) >= due.getTime(),
    );
    const memoError = description.memo?.lastError as TaskError | null | undefined;
    return {
      ...initialTaskState(spec),
      executeAt: due.toISOString(),
      status: 'RUNNING',
      attempts: recordedAttempts(events) + 1,
      lastError: memoError ?? null,
      firedAt: firedAt ? new Date(eventTimeMs(firedAt)).toISOString() : null,
    };
  }
}

/** Callback attempts a history records: activity tasks (shape v1) and local activity markers (v2). */
function recordedAttempts(events: HistoryEvent[]): number {
  return events.filter(
    (event) =>
      event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED ||
      (event.eventType === EventType.EVENT_TYPE_MARKER_RECORDED &&
        event.markerRecordedEventAttributes?.markerName === LOCAL_ACTIVITY_MARKER),
  ).length;
}
