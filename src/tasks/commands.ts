/**
 * What changes a task: create (prepare, then commit), cancel, reschedule and replay. Each task is one
 * workflow whose id is derived from its owner and task id (src/shared/owner.ts); every command
 * addresses one owner's tasks, so another owner's task is as absent as a missing one.
 */
import { randomUUID } from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { checkPullAccess } from '../auth/pull-access.js';
import { checkTaskAccess, readableTask, type TaskAccess } from '../auth/principal.js';
import type { Config } from '../config/environment.js';
import type { CreateTaskBody, ReplayBody, RescheduleBody, Task } from '../contract/tasks.js';
import { ApiError, ErrorCode, taskNotFound } from '../errors/catalog.js';
import type { Policies } from '../task-types/policies.js';
import {
  CallbackGuard,
  CallbackRefusedError,
  systemResolver,
  type Resolver,
} from '../security/callback-guard.js';
import { TASK_WORKFLOW_TYPE } from '../shared/constants.js';
import { workflowIdOf } from '../shared/owner.js';
import { pullQueue, routeNewTask, type TaskRouting } from '../shared/task-queues.js';
import { initialTaskState, ownerOf, type TaskSpec } from '../shared/task.js';
import type { TemporalCalls } from '../temporal/calls.js';
import { isNotRunning, toApiError } from '../temporal/errors.js';
import { rescheduleUpdate, type delayedTask } from '../workflows/delayed-task.js';
import { buildTaskSpec, capped, checkPayload, checkPayloadSchema, resolveWhen } from './input.js';
import type { TaskReader } from './reader.js';
import { fingerprintOf } from './fingerprint.js';
import { sendCancel } from './legacy-start-delay.js';
import { taskStartOptions } from './start-options.js';
import { cancelledView, toTask } from './views.js';

/** A create that passed every check and has not touched Temporal yet. */
export interface PreparedCreate {
  readonly spec: TaskSpec;
  readonly fingerprint: string;
  /** The queue its workflow starts on (`routeNewTask`). */
  readonly workflowTaskQueue: string;
}

export interface CreateResult {
  task: Task;
  /** False: an identical task of this id existed (an idempotent repeat). */
  created: boolean;
}

export interface TaskCommandsOptions {
  temporal: TemporalCalls;
  reader: TaskReader;
  config: Readonly<Config>;
  policies: Policies;
  now: () => number;
  /** Resolves callback hosts at create (the SSRF guard); the system resolver by default. */
  resolve?: Resolver | undefined;
}

/** How long a create waits for DNS before leaving the address check to send time. */
const CREATE_RESOLVE_TIMEOUT_MS = 2_000;

export class TaskCommands {
  private readonly temporal: TemporalCalls;
  private readonly reader: TaskReader;
  private readonly guard: CallbackGuard;
  private readonly taskQueue: string;

  constructor(private readonly options: TaskCommandsOptions) {
    this.temporal = options.temporal;
    this.reader = options.reader;
    this.guard = new CallbackGuard(options.config.callbacks);
    this.taskQueue = options.config.temporal.taskQueue;
  }

  /**
   * Creates a task for `access.owner`; the same id with the same spec returns the existing task
   * (`created: false`). Idempotency is per owner: another owner's task of the same id is another task.
   */
  async create(access: TaskAccess, body: CreateTaskBody): Promise<CreateResult> {
    const prepared = await this.prepare(access, body);
    return this.commit(prepared);
  }

  /**
   * Every check of a create that needs no Temporal call: access, validation, the SSRF guard. A
   * batch prepares its items, then commits each one (src/api/batch-create.ts).
   */
  async prepare(access: TaskAccess, body: CreateTaskBody): Promise<PreparedCreate> {
    checkTaskAccess(access, { taskType: body.taskType });
    const policy = this.options.policies.require(body.taskType);
    const { workflowTaskQueue, callbackTaskQueue, localCallback } = routeNewTask(this.taskQueue, policy);
    const { spec, fingerprint, target } = buildTaskSpec(body, {
      owner: access.owner,
      now: this.options.now(),
      limits: this.options.config.limits,
      policy,
      callbackTaskQueue,
      localCallback,
      newTaskId: randomUUID,
      guard: this.guard,
      leases: this.options.config.leases,
      pullTaskQueue: (queue) => pullQueue(this.taskQueue, access.owner, queue),
    });
    if (target) {
      checkTaskAccess(access, { taskType: spec.taskType, callbackHost: target.parsed.hostname });
      await this.checkCallbackAddresses(target.parsed);
    } else {
      checkPullAccess(access, spec);
    }
    return { spec, fingerprint, workflowTaskQueue };
  }

  /** Starts a prepared task's workflow, or answers the existing identical one. */
  async commit({ spec, fingerprint, workflowTaskQueue }: PreparedCreate): Promise<CreateResult> {
    const created = await this.startUnlessSame(spec, fingerprint, workflowTaskQueue);
    const state = created ? initialTaskState(spec) : await this.reader.state(spec.owner, spec.taskId);
    return { task: toTask(state), created };
  }

  /** True when it started the task; false when an identical one of this id exists; 409 when another does. */
  private async startUnlessSame(
    spec: TaskSpec,
    fingerprint: string,
    workflowTaskQueue: string,
  ): Promise<boolean> {
    try {
      await this.start(spec, fingerprint, workflowTaskQueue, 'REJECT_DUPLICATE');
      return true;
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw toApiError(err);
    }
    const existing = await this.temporal.call(
      () => this.temporal.client.workflow.getHandle(workflowIdOf(spec.owner, spec.taskId)).describe(),
      spec.taskId,
    );
    if (existing.type !== TASK_WORKFLOW_TYPE || existing.memo?.specHash !== fingerprint) {
      throw new ApiError(ErrorCode.TaskConflict, `task ${spec.taskId} exists with a different specification`);
    }
    return false;
  }

  /** Cancels a SCHEDULED or RUNNING task; a CANCELLED one is a no-op; a finished one is a conflict. */
  async cancel(access: TaskAccess, taskId: string): Promise<Task> {
    const { state, waiting, busy } = await this.reader.lookup(access.owner, taskId);
    readableTask(access, state);
    if (state.status === 'CANCELLED') return toTask(state);
    if (state.status === 'SUCCEEDED' || state.status === 'FAILED') {
      throw new ApiError(
        ErrorCode.FailedPrecondition,
        `task ${taskId} is ${state.status} and can no longer be cancelled`,
      );
    }
    const request = { reason: 'cancelled through the API' };
    try {
      await this.temporal.call(
        () => sendCancel(this.temporal, workflowIdOf(access.owner, taskId), waiting, this.taskQueue, request),
        taskId,
      );
    } catch (err) {
      // Finished between the query and the signal: report what it became.
      if (!isNotRunning(err) && !(err instanceof WorkflowExecutionAlreadyStartedError))
        throw toApiError(err, taskId);
      return this.cancel(access, taskId);
    }
    // The server has the signal. A workflow busy with an attempt reads it when the attempt's workflow
    // task ends, and its handler settles the task CANCELLED before anything else (the attempt's
    // outcome is dropped, no further attempt follows): answer that now rather than wait for it. So
    // for a task not yet due: signal-with-start has run its workflow, which settles it the same way.
    if (busy || waiting) return toTask(cancelledView(state, this.options.now()));
    return toTask(await this.reader.state(access.owner, taskId));
  }

  async reschedule(access: TaskAccess, taskId: string, body: RescheduleBody): Promise<Task> {
    const { limits } = this.options.config;
    const executeAt = new Date(resolveWhen(body, this.options.now(), limits)).toISOString();
    // The update goes straight to the workflow: only a key limited to some task types or callback
    // hosts reads the task first.
    if (access.allowedTaskTypes || access.allowedCallbackHosts) {
      readableTask(access, await this.reader.state(access.owner, taskId));
    }
    try {
      const handle = this.temporal.client.workflow.getHandle(workflowIdOf(access.owner, taskId));
      const update = this.temporal.call(
        () => handle.executeUpdate(rescheduleUpdate, { args: [{ executeAt }] }),
        taskId,
      );
      // An update waits, like a query, while the workflow is busy with an attempt; the validator will
      // refuse it then without a trace (the task is no longer SCHEDULED): say so now.
      const state = await this.reader.unlessBusy(update, handle, taskId, (busy) => {
        throw notScheduled(busy.status);
      });
      if (ownerOf(state) !== access.owner) throw taskNotFound(taskId);
      return toTask(state);
    } catch (err) {
      if (err instanceof ApiError && err.code === ErrorCode.TaskNotFound) {
        // Updates cannot reach a closed run: tell "gone" from "finished".
        throw notScheduled((await this.reader.state(access.owner, taskId)).status);
      }
      throw err;
    }
  }

  /** Runs a FAILED or CANCELLED task again as a new run of the same workflow id. */
  async replay(access: TaskAccess, taskId: string, body: ReplayBody): Promise<Task> {
    const previous = await this.reader.state(access.owner, taskId);
    readableTask(access, previous);
    if (previous.status !== 'FAILED' && previous.status !== 'CANCELLED') {
      throw new ApiError(
        ErrorCode.FailedPrecondition,
        `only a FAILED or CANCELLED task can be replayed; this one is ${previous.status}`,
      );
    }
    const policy = this.options.policies.require(previous.taskType);
    const { limits } = this.options.config;
    const payload = (body.payload as Record<string, unknown> | undefined) ?? previous.payload;
    const payloadVersion = body.payloadVersion ?? previous.payloadVersion;
    if (body.payload) checkPayload(payload, limits);
    // An edited payload or version must keep the type's promise; an unchanged one replays as it was.
    if (body.payload || body.payloadVersion !== undefined)
      checkPayloadSchema(payload, payloadVersion, policy);
    const { workflowTaskQueue, callbackTaskQueue, localCallback } = routeNewTask(this.taskQueue, policy);
    // The new run's input is the previous one's, every field carried over unless named here (a new
    // TaskSpec field is carried without an edit), with the routing of today's policy.
    const {
      status: _s,
      attempts: _a,
      lastError: _l,
      nextAttemptAt: _n,
      firedAt: _f,
      completedAt: _c,
      attemptHistory: _h,
      ...carried
    } = previous;
    const spec: TaskSpec = {
      ...(carried satisfies Omit<TaskSpec, keyof TaskRouting | 'deliveryTaskQueue' | 'retryPolicy'>),
      owner: access.owner,
      payload,
      payloadVersion,
      executeAt: new Date(resolveWhen(body, this.options.now(), limits, true)).toISOString(),
      maxRetries:
        body.maxRetries === undefined
          ? previous.maxRetries
          : capped('maxRetries', body.maxRetries, policy.maxRetries),
      callbackTaskQueue,
      ...(previous.delivery && {
        deliveryTaskQueue: pullQueue(this.taskQueue, access.owner, previous.delivery.queue),
      }),
      retryPolicy: policy.retry,
      localCallback,
    };
    try {
      await this.start(spec, fingerprintOf(spec), workflowTaskQueue, 'ALLOW_DUPLICATE');
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) {
        throw new ApiError(
          ErrorCode.FailedPrecondition,
          `task ${taskId} is still closing its previous run; retry shortly`,
        );
      }
      throw toApiError(err, taskId);
    }
    return toTask(initialTaskState(spec));
  }

  private async start(
    spec: TaskSpec,
    fingerprint: string,
    workflowTaskQueue: string,
    reuse: 'REJECT_DUPLICATE' | 'ALLOW_DUPLICATE',
  ): Promise<void> {
    await this.temporal.bounded(() =>
      this.temporal.client.workflow.start<typeof delayedTask>(
        TASK_WORKFLOW_TYPE,
        taskStartOptions(spec, fingerprint, workflowTaskQueue, reuse),
      ),
    );
  }

  /** The SSRF guard on what the callback host resolves to now; send time checks again. */
  private async checkCallbackAddresses(callbackUrl: URL): Promise<void> {
    const resolve = this.options.resolve ?? systemResolver;
    const bounded: Resolver = (hostname) =>
      Promise.race([
        resolve(hostname),
        new Promise<never>((_, reject) =>
          setTimeout(() => reject(new Error('DNS timed out')), CREATE_RESOLVE_TIMEOUT_MS).unref(),
        ),
      ]);
    try {
      await this.guard.checkResolved(callbackUrl, bounded);
    } catch (err) {
      if (!(err instanceof CallbackRefusedError)) throw err;
      // What a name resolves to inside our network is not the caller's to learn: the answer says
      // which rule refused, the log (the error's cause) has the address.
      const host = callbackUrl.hostname;
      const reason = `host ${host} resolves to an address callbacks may not reach (private, loopback, link-local or metadata); CALLBACK_ALLOW_HOSTS or CALLBACK_ALLOW_CIDRS can allow it`;
      throw new ApiError(
        ErrorCode.InvalidArgument,
        `callbackUrl ${reason}`,
        [{ field: 'callbackUrl', reason }],
        {
          cause: err,
        },
      );
    }
  }
}

function notScheduled(status: string): ApiError {
  return new ApiError(
    ErrorCode.FailedPrecondition,
    `only a SCHEDULED task can be rescheduled; this one is ${status}`,
  );
}
