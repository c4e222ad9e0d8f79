/**
 * One delayed task: sleep durably until its time, then call back over HTTP with retries until
 * success, a permanent error, exhausted retries (dead letter) or cancellation.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  condition,
  defineQuery,
  defineSignal,
  defineUpdate,
  isCancellation,
  log,
  patched,
  proxyActivities,
  proxyLocalActivities,
  proxySinks,
  setHandler,
  upsertMemo,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { CallbackActivities } from '../activities/callback.js';
import { retryDelayMs, withinTotalTime } from '../shared/backoff.js';
import {
  ATTEMPT_TIMEOUT_MARGIN_MS,
  heldRetryDelayMs,
  SEARCH_ATTRIBUTES,
  WORKFLOW_PATCHES,
} from '../shared/constants.js';
import type { TaskSinks } from '../shared/sinks.js';
import {
  CallbackFailureType,
  initialTaskState,
  isFinalStatus,
  ownerOf,
  recordAttempt,
  FAILED_PRECONDITION_TYPE,
  TASK_FAILED_TYPE,
  type AttemptOutcome,
  type AttemptRecord,
  type CallbackFailureDetails,
  type CancelRequest,
  type RescheduleRequest,
  type TaskError,
  type TaskSpec,
  type TaskState,
  type TaskStatus,
} from '../shared/task.js';

/** Stop the task: a scheduled task never calls back, a running one makes no further attempt. */
export const cancelSignal = defineSignal<[CancelRequest?]>('cancel');
/** The task as it is now. */
export const statusQuery = defineQuery<TaskState>('status');
/** Move a SCHEDULED task to another time; the validator rejects any other state without a trace. */
export const rescheduleUpdate = defineUpdate<TaskState, [RescheduleRequest]>('reschedule');

const { taskMetrics } = proxySinks<TaskSinks>();

const RFC3339_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

export async function delayedTask(spec: TaskSpec): Promise<TaskState> {
  // Query-only bookkeeping, no command: histories recorded before the attempt history replay unchanged.
  const attemptHistory: AttemptRecord[] = [];
  const state: TaskState = { ...initialTaskState(spec), attemptHistory };
  const logContext = { taskId: spec.taskId, taskType: spec.taskType, traceId: spec.traceId };
  let cancelRequested = false;
  let rescheduled = false;
  let attemptScope: CancellationScope | undefined;

  setHandler(statusQuery, () => ({ ...state }));
  setHandler(cancelSignal, (request) => {
    if (state.status !== 'SCHEDULED' && state.status !== 'RUNNING') return;
    log.info('task cancel requested', { ...logContext, reason: request?.reason });
    cancelRequested = true;
    attemptScope?.cancel();
    // Settled at once, so a query right after the signal already answers CANCELLED.
    finish('CANCELLED');
  });
  setHandler(
    rescheduleUpdate,
    (request) => {
      // The CLI passes the time as typed: keep the task's times in one form, UTC with milliseconds.
      const executeAt = new Date(request.executeAt).toISOString();
      log.info('task rescheduled', { ...logContext, from: state.executeAt, to: executeAt });
      state.executeAt = executeAt;
      rescheduled = true;
      upsertSearchAttributes([{ key: SEARCH_ATTRIBUTES.executeAt, value: new Date(executeAt) }]);
      upsertMemo({ executeAt });
      return { ...state };
    },
    {
      validator: ({ executeAt }) => {
        if (state.status !== 'SCHEDULED' || cancelRequested) {
          throw ApplicationFailure.create({
            type: FAILED_PRECONDITION_TYPE,
            message: `only a SCHEDULED task can be rescheduled; this one is ${cancelRequested ? 'CANCELLED' : state.status}`,
            nonRetryable: true,
          });
        }
        // An explicit offset: a time without one would be read in the worker's time zone.
        if (!RFC3339_WITH_OFFSET.test(executeAt) || !Number.isFinite(Date.parse(executeAt))) {
          throw ApplicationFailure.create({
            type: 'InvalidArgument',
            message:
              'executeAt is not a valid time: give RFC 3339 with an offset, e.g. 2026-12-02T18:30:00+08:00',
            nonRetryable: true,
          });
        }
      },
    },
  );

  const callbackOptions = {
    startToCloseTimeout: spec.timeoutMs + ATTEMPT_TIMEOUT_MARGIN_MS,
    // The workflow owns the retry schedule (see below); each attempt is one activity execution.
    retry: { maximumAttempts: 1 },
    summary: `POST ${spec.callbackUrl}`,
  };
  const { deliverCallback } = proxyActivities<CallbackActivities>({
    ...callbackOptions,
    taskQueue: spec.callbackTaskQueue,
    priority: { priorityKey: spec.priority },
  });
  // Shape v2: the callback runs in the worker that runs this workflow, on the task type's own queue
  // (the input asks for it; tasks started before v2 never do). Attempts longer than the workflow
  // task timeout stay one attempt: the SDK keeps the workflow task alive while it runs.
  const { deliverCallback: deliverCallbackLocally } =
    proxyLocalActivities<CallbackActivities>(callbackOptions);

  /**
   * Shape v2: the callback as a local activity when the input asks for it, and no search attribute or
   * memo write while the first attempt is in flight. An input written since v2 says `localCallback`
   * (true or false) and is v2 by construction: no patch is asked for, as each patch marker also
   * upserts the `TemporalChangeVersion` search attribute, a visibility write. An input from before
   * v2 takes v2 only behind `patched()`, checked when the task is due: a task still sleeping when the
   * worker is upgraded takes the v2 path, one that had already fired replays and ends as v1.
   */
  const shapeV2 = () => spec.localCallback !== undefined || patched(WORKFLOW_PATCHES.shapeV2);

  function setStatus(status: TaskStatus): void {
    state.status = status;
    upsertSearchAttributes([{ key: SEARCH_ATTRIBUTES.taskStatus, value: status }]);
  }

  function finish(status: 'SUCCEEDED' | 'FAILED' | 'CANCELLED'): TaskState {
    if (isFinalStatus(state.status)) return { ...state };
    state.completedAt = new Date().toISOString();
    state.nextAttemptAt = null;
    setStatus(status);
    upsertMemo({
      status,
      attempts: state.attempts,
      lastError: state.lastError,
      completedAt: state.completedAt,
    });
    taskMetrics.finished(spec.taskType, status);
    log.info('task finished', { ...logContext, status, attempts: state.attempts });
    return { ...state };
  }

  /** Sleeps until the due time, following reschedules; returns early on cancel. */
  async function waitUntilDue(): Promise<void> {
    for (;;) {
      const wait = Date.parse(state.executeAt) - Date.now();
      if (cancelRequested || wait <= 0) return;
      rescheduled = false;
      await condition(() => rescheduled || cancelRequested, wait);
    }
  }

  async function deliver(): Promise<TaskState> {
    const v2 = shapeV2();
    // v1 writes RUNNING to visibility as the task fires; v2 leaves SCHEDULED there while the first
    // attempt runs (the query and GET say RUNNING) and writes RUNNING only if a retry follows.
    let runningVisible = !v2;
    if (v2) state.status = 'RUNNING';
    else setStatus('RUNNING');
    const attemptCallback = v2 && spec.localCallback === true ? deliverCallbackLocally : deliverCallback;
    state.firedAt = new Date().toISOString();
    // Moved on by the time spent held, which the task type's maximum total time does not count.
    let firstAttemptAt = Date.now();
    let holds = 0;
    log.info('task due, calling back', { ...logContext, executeAt: state.executeAt });
    for (let attempt = 1; ; attempt++) {
      state.attempts = attempt;
      state.nextAttemptAt = null;
      const startedAt = new Date().toISOString();
      const recordOutcome = (outcome: AttemptOutcome, statusCode?: number, error?: string): void =>
        recordAttempt(attemptHistory, {
          attempt,
          startedAt,
          finishedAt: new Date().toISOString(),
          outcome,
          ...(statusCode !== undefined && { statusCode }),
          ...(error !== undefined && { error }),
        });
      try {
        attemptScope = new CancellationScope();
        const delivered = await attemptScope.run(() =>
          attemptCallback({
            taskId: spec.taskId,
            owner: ownerOf(spec),
            // Only when the input has one: an attempt's input of an older task stays as it was.
            ...(spec.idempotencyKey !== undefined && { idempotencyKey: spec.idempotencyKey }),
            taskType: spec.taskType,
            payload: spec.payload,
            payloadVersion: spec.payloadVersion,
            executeAt: state.executeAt,
            attempt,
            traceId: spec.traceId,
            callbackUrl: spec.callbackUrl,
            timeoutMs: spec.timeoutMs,
          }),
        );
        recordOutcome('SUCCEEDED', delivered.statusCode);
        return finish('SUCCEEDED');
      } catch (err) {
        if (cancelRequested || isCancellation(err)) recordOutcome('CANCELLED');
        if (cancelRequested) return finish('CANCELLED');
        if (isCancellation(err)) throw err;
        const failure = describeFailure(err);
        if (failure.held) {
          // Our configuration lacks what this callback needs (a signing or header secret): the
          // receiver was never asked, so no attempt is spent; wait and try the same attempt again.
          // Replay-safe without a patch: no recorded history holds a failure of this type.
          const delay = heldRetryDelayMs(++holds);
          state.attempts = attempt - 1;
          state.nextAttemptAt = new Date(Date.now() + delay).toISOString();
          if (state.lastError?.message !== failure.error.message) {
            state.lastError = failure.error;
            upsertMemo({ lastError: state.lastError });
            log.warn('callback held: configuration missing', { ...logContext, error: failure.error });
          }
          await condition(() => cancelRequested, delay);
          if (cancelRequested) return finish('CANCELLED');
          firstAttemptAt += delay;
          attempt--;
          continue;
        }
        recordOutcome(
          failure.retryable ? 'RETRYABLE_ERROR' : 'PERMANENT_ERROR',
          failure.error.statusCode,
          failure.error.message,
        );
        state.lastError = failure.error;
        if (!failure.retryable || attempt > spec.maxRetries) return finish('FAILED');
        const delay = retryDelayMs(attempt, failure.retryAfterMs, spec.retryPolicy);
        // Only tasks whose type sets a maximum total time can end here; others run as before.
        if (spec.retryPolicy && !withinTotalTime(spec.retryPolicy, firstAttemptAt, Date.now(), delay)) {
          state.lastError = {
            ...failure.error,
            message: `${failure.error.message} (no further attempt: the task type's maximum total time of ${spec.retryPolicy.maxTotalSeconds} s is reached)`,
          };
          return finish('FAILED');
        }
        state.nextAttemptAt = new Date(Date.now() + delay).toISOString();
        if (!runningVisible) {
          // A retrying task is RUNNING in visibility (list by status, the overdue gauges).
          setStatus('RUNNING');
          runningVisible = true;
        }
        // The list and the console show attempts and the last error of a retrying task.
        upsertMemo({ attempts: state.attempts, lastError: state.lastError });
        log.warn('callback attempt failed, will retry', {
          ...logContext,
          attempt,
          delayMs: delay,
          error: failure.error,
        });
        // An immediate retry (a type's policy only; today's schedule never waits 0) sets no timer.
        if (delay > 0) await condition(() => cancelRequested, delay);
        if (cancelRequested) return finish('CANCELLED');
      } finally {
        attemptScope = undefined;
      }
    }
  }

  let result: TaskState;
  try {
    await waitUntilDue();
    result = cancelRequested ? finish('CANCELLED') : await deliver();
  } catch (err) {
    if (isCancellation(err)) {
      // `temporal workflow cancel`: record the outcome, then end the run as cancelled.
      await CancellationScope.nonCancellable(async () => finish('CANCELLED'));
    }
    throw err;
  }
  if (result.status === 'FAILED') {
    // Dead letter: the run ends Failed, so the Web UI and `ExecutionStatus='Failed'` show it too.
    throw ApplicationFailure.create({
      type: TASK_FAILED_TYPE,
      message: `callback failed after ${result.attempts} attempt(s): ${result.lastError?.message ?? 'unknown error'}`,
      details: [result],
      nonRetryable: true,
    });
  }
  return result;
}

interface AttemptFailure {
  error: TaskError;
  retryable: boolean;
  /** Not sent for want of our own configuration: no attempt spent. */
  held?: boolean;
  retryAfterMs?: number;
}

/** Reads what the callback activity reported; a lost worker or an attempt timeout is retryable. */
function describeFailure(err: unknown): AttemptFailure {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (cause instanceof ApplicationFailure) {
    const details = (cause.details?.[0] ?? {}) as CallbackFailureDetails;
    const error: TaskError = { message: cause.message };
    if (details.statusCode !== undefined) error.statusCode = details.statusCode;
    return {
      error,
      retryable: cause.type !== CallbackFailureType.Permanent,
      held: cause.type === CallbackFailureType.Held,
      retryAfterMs: details.retryAfterMs,
    };
  }
  const message = cause instanceof Error ? cause.message : String(cause);
  return { error: { message: `callback attempt did not complete: ${message}` }, retryable: true };
}
