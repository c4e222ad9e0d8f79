/**
 * The callback attempts of a task that is due: each attempt one activity execution, the retry
 * schedule the workflow's own, until success, a permanent error, exhausted retries or a cancel.
 * Workflow code: deterministic, no I/O; the activities are imported as types only.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  condition,
  isCancellation,
  log,
  patched,
  TimeoutFailure,
  upsertMemo,
} from '@temporalio/workflow';
import { retryDelayMs, withinTotalTime } from '../shared/backoff.js';
import { heldRetryDelayMs, releaseOutcome, WORKFLOW_PATCHES } from '../shared/constants.js';
import type { DeliveryEnvelope } from '../shared/delivery.js';
import {
  CallbackFailureType,
  ownerOf,
  recordAttempt,
  type AttemptOutcome,
  type CallbackFailureDetails,
  type TaskError,
  type TaskSpec,
  type TaskState,
} from '../shared/task.js';
import { deliveryAttemptOf } from './delivery.js';
import type { TaskRun } from './task-run.js';

/**
 * Shape v2: the callback as a local activity when the input asks for it, and no search attribute or
 * memo write while the first attempt is in flight. An input written since v2 says `localCallback`
 * (true or false) and is v2 by construction: no patch is asked for, as each patch marker also
 * upserts the `TemporalChangeVersion` search attribute, a visibility write. An input from before
 * v2 takes v2 only behind `patched()`, checked when the task is due: a task still sleeping when the
 * worker is upgraded takes the v2 path, one that had already fired replays and ends as v1.
 */
function isShapeV2(spec: TaskSpec): boolean {
  return spec.localCallback !== undefined || patched(WORKFLOW_PATCHES.shapeV2);
}

/** Calls back until the task is settled; returns its final state. */
export async function deliver(run: TaskRun): Promise<TaskState> {
  const { spec, state, logContext, attemptHistory } = run;
  const v2 = isShapeV2(spec);
  // v1 writes RUNNING to visibility as the task fires; v2 leaves SCHEDULED there while the first
  // attempt runs (the query and GET say RUNNING) and writes RUNNING only if a retry follows.
  let runningVisible = !v2;
  if (v2) state.status = 'RUNNING';
  else run.setStatus('RUNNING');
  const attemptDelivery = deliveryAttemptOf(spec, v2);
  state.firedAt = new Date().toISOString();
  // Moved on by the time spent held, which the task type's maximum total time does not count.
  let firstAttemptAt = Date.now();
  let holds = 0;
  /** Releases of the current attempt (a pull task handed back unhandled). */
  let releases = 0;
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
      run.attemptScope = new CancellationScope();
      const delivered = await run.attemptScope.run(() =>
        attemptDelivery(envelopeOf(spec, state.executeAt, attempt)),
      );
      recordOutcome('SUCCEEDED', delivered.statusCode);
      return run.finish('SUCCEEDED');
    } catch (err) {
      if (run.cancelRequested || isCancellation(err)) recordOutcome('CANCELLED');
      if (run.cancelRequested) return run.finish('CANCELLED');
      if (isCancellation(err)) throw err;
      let failure = describeFailure(err, spec);
      if (failure.released) {
        // A pull task handed back unhandled (release, or a lease the API took after its consumer
        // left): not attempted, so no attempt is spent; offered again at once, after a wait once
        // released often, and the last release the bound allows spends the attempt.
        // The API's own hand-backs (a task received after the lease call answered) are not counted.
        const step = failure.handedBack ? 0 : releaseStep(++releases);
        if (step !== 'spend-attempt') {
          state.attempts = attempt - 1;
          attempt--;
          if (step > 0) {
            state.nextAttemptAt = new Date(Date.now() + step).toISOString();
            await condition(() => run.cancelRequested, step);
            if (run.cancelRequested) return run.finish('CANCELLED');
            // Not an attempt: the task type's maximum total time does not count the wait.
            firstAttemptAt += step;
          }
          continue;
        }
        failure = { error: { message: `released ${releases} times without being handled` }, retryable: true };
      }
      releases = 0;
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
        await condition(() => run.cancelRequested, delay);
        if (run.cancelRequested) return run.finish('CANCELLED');
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
      if (!failure.retryable || attempt > spec.maxRetries) return run.finish('FAILED');
      const delay = retryDelayMs(attempt, failure.retryAfterMs, spec.retryPolicy);
      // Only tasks whose type sets a maximum total time can end here; others run as before.
      if (spec.retryPolicy && !withinTotalTime(spec.retryPolicy, firstAttemptAt, Date.now(), delay)) {
        state.lastError = {
          ...failure.error,
          message: `${failure.error.message} (no further attempt: the task type's maximum total time of ${spec.retryPolicy.maxTotalSeconds} s is reached)`,
        };
        return run.finish('FAILED');
      }
      state.nextAttemptAt = new Date(Date.now() + delay).toISOString();
      if (!runningVisible) {
        // A retrying task is RUNNING in visibility (list by status, the overdue gauges).
        run.setStatus('RUNNING');
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
      if (delay > 0) await condition(() => run.cancelRequested, delay);
      if (run.cancelRequested) return run.finish('CANCELLED');
    } finally {
      run.attemptScope = undefined;
    }
  }
}

/**
 * What the `release`-th release of an attempt does (`releaseOutcome`: a wait in ms, 0 at once, or
 * spending the attempt). Past the free releases the bound applies behind a patch, asked for only
 * there: a run recorded before the bound replays as it ran. Replay-safe otherwise: only pull tasks,
 * whose inputs did not exist before, fail with the released type.
 */
function releaseStep(release: number): number | 'spend-attempt' {
  const outcome = releaseOutcome(release);
  if (outcome === 0 || !patched(WORKFLOW_PATCHES.releaseBound)) return 0;
  return outcome;
}

/** The input of an attempt, whichever the target (src/shared/delivery.ts). */
function envelopeOf(spec: TaskSpec, executeAt: string, attempt: number): DeliveryEnvelope {
  return {
    taskId: spec.taskId,
    owner: ownerOf(spec),
    // Only when the input has one: an attempt's input of an older task stays as it was.
    ...(spec.idempotencyKey !== undefined && { idempotencyKey: spec.idempotencyKey }),
    taskType: spec.taskType,
    payload: spec.payload,
    payloadVersion: spec.payloadVersion,
    executeAt,
    attempt,
    traceId: spec.traceId,
    callbackUrl: spec.callbackUrl,
    timeoutMs: spec.timeoutMs,
    // A schedule's occurrence tells the receiver which schedule and nominal time it runs for.
    ...(spec.schedule?.scheduledAt !== undefined && {
      schedule: { scheduleId: spec.schedule.scheduleId, scheduledAt: spec.schedule.scheduledAt },
    }),
  };
}

interface AttemptFailure {
  error: TaskError;
  retryable: boolean;
  /** Not sent for want of our own configuration: no attempt spent. */
  held?: boolean;
  /** A pull task handed back unhandled: no attempt spent, no wait. */
  released?: boolean;
  /** Handed back by the API itself, not by a consumer: not counted by the release bound. */
  handedBack?: boolean;
  retryAfterMs?: number;
}

/** Reads what the attempt reported; a lost worker, an expired lease or an attempt timeout is retryable. */
function describeFailure(err: unknown, spec: TaskSpec): AttemptFailure {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (cause instanceof ApplicationFailure) {
    const details = (cause.details?.[0] ?? {}) as CallbackFailureDetails;
    const error: TaskError = { message: cause.message };
    if (details.statusCode !== undefined) error.statusCode = details.statusCode;
    return {
      error,
      retryable:
        cause.type !== CallbackFailureType.Permanent && cause.type !== CallbackFailureType.NackedPermanent,
      held: cause.type === CallbackFailureType.Held,
      released: cause.type === CallbackFailureType.Released || cause.type === CallbackFailureType.HandedBack,
      handedBack: cause.type === CallbackFailureType.HandedBack,
      retryAfterMs: details.retryAfterMs,
    };
  }
  if (spec.delivery?.mode === 'pull' && cause instanceof TimeoutFailure) {
    const message =
      cause.timeoutType === 'HEARTBEAT'
        ? `lease expired: neither acked nor extended within ${spec.delivery.leaseSeconds} s`
        : `lease held past its longest hold: ${cause.message}`;
    return { error: { message }, retryable: true };
  }
  const message = cause instanceof Error ? cause.message : String(cause);
  return { error: { message: `callback attempt did not complete: ${message}` }, retryable: true };
}
