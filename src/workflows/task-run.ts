/**
 * The state of one task's run and everything that changes it from outside or at its end: the status
 * query, the cancel signal, the reschedule update, the sleep until the due time, and `finish`.
 * The callback attempts (`deliver.ts`) act on it. Workflow code: deterministic, no I/O.
 */
import {
  ApplicationFailure,
  type CancellationScope,
  condition,
  log,
  proxySinks,
  setHandler,
  upsertMemo,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import { SEARCH_ATTRIBUTES } from '../shared/constants.js';
import type { TaskSinks } from '../shared/sinks.js';
import {
  initialTaskState,
  isFinalStatus,
  FAILED_PRECONDITION_TYPE,
  type AttemptRecord,
  type CancelRequest,
  type RescheduleRequest,
  type TaskSpec,
  type TaskState,
  type TaskStatus,
} from '../shared/task.js';
import { cancelSignal, rescheduleUpdate, statusQuery } from './definitions.js';

const { taskMetrics } = proxySinks<TaskSinks>();

const RFC3339_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

export class TaskRun {
  // Query-only bookkeeping, no command: histories recorded before the attempt history replay unchanged.
  readonly attemptHistory: AttemptRecord[] = [];
  readonly state: TaskState;
  readonly logContext: Record<string, unknown>;
  /** The scope of the attempt in flight: a cancel cancels it. */
  attemptScope: CancellationScope | undefined;
  private cancelled = false;
  private rescheduled = false;

  constructor(readonly spec: TaskSpec) {
    this.state = { ...initialTaskState(spec), attemptHistory: this.attemptHistory };
    this.logContext = { taskId: spec.taskId, taskType: spec.taskType, traceId: spec.traceId };
  }

  /** A cancel signal or a cancel of the run has come: nothing further may call back. */
  get cancelRequested(): boolean {
    return this.cancelled;
  }

  /** Sets the handlers; before anything else runs, so a signal waiting in history is seen first. */
  listen(): void {
    setHandler(statusQuery, () => ({ ...this.state }));
    setHandler(cancelSignal, (request) => this.cancel(request));
    setHandler(rescheduleUpdate, (request) => this.reschedule(request), {
      validator: (request) => this.checkReschedule(request),
    });
  }

  /** Sleeps until the due time, following reschedules; returns early on cancel. */
  async waitUntilDue(): Promise<void> {
    for (;;) {
      const wait = Date.parse(this.state.executeAt) - Date.now();
      if (this.cancelRequested || wait <= 0) return;
      this.rescheduled = false;
      await condition(() => this.rescheduled || this.cancelRequested, wait);
    }
  }

  setStatus(status: TaskStatus): void {
    this.state.status = status;
    upsertSearchAttributes([{ key: SEARCH_ATTRIBUTES.taskStatus, value: status }]);
  }

  finish(status: 'SUCCEEDED' | 'FAILED' | 'CANCELLED'): TaskState {
    const { state } = this;
    if (isFinalStatus(state.status)) return { ...state };
    state.completedAt = new Date().toISOString();
    state.nextAttemptAt = null;
    this.setStatus(status);
    upsertMemo({
      status,
      attempts: state.attempts,
      lastError: state.lastError,
      completedAt: state.completedAt,
    });
    taskMetrics.finished(this.spec.taskType, status);
    log.info('task finished', { ...this.logContext, status, attempts: state.attempts });
    return { ...state };
  }

  private cancel(request: CancelRequest | undefined): void {
    if (this.state.status !== 'SCHEDULED' && this.state.status !== 'RUNNING') return;
    log.info('task cancel requested', { ...this.logContext, reason: request?.reason });
    this.cancelled = true;
    this.attemptScope?.cancel();
    // Settled at once, so a query right after the signal already answers CANCELLED.
    this.finish('CANCELLED');
  }

  private reschedule(request: RescheduleRequest): TaskState {
    // The CLI passes the time as typed: keep the task's times in one form, UTC with milliseconds.
    const executeAt = new Date(request.executeAt).toISOString();
    log.info('task rescheduled', { ...this.logContext, from: this.state.executeAt, to: executeAt });
    this.state.executeAt = executeAt;
    this.rescheduled = true;
    upsertSearchAttributes([{ key: SEARCH_ATTRIBUTES.executeAt, value: new Date(executeAt) }]);
    upsertMemo({ executeAt });
    return { ...this.state };
  }

  private checkReschedule({ executeAt }: RescheduleRequest): void {
    if (this.state.status !== 'SCHEDULED' || this.cancelRequested) {
      throw ApplicationFailure.create({
        type: FAILED_PRECONDITION_TYPE,
        message: `only a SCHEDULED task can be rescheduled; this one is ${this.cancelRequested ? 'CANCELLED' : this.state.status}`,
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
  }
}
