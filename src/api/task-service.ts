/**
 * What the API does with tasks, in Temporal terms: each task is one workflow whose id is derived
 * from its owner and task id (src/shared/owner.ts). Every call addresses one owner's tasks, so
 * another owner's task is as absent as a missing one. Every Temporal call runs under a deadline,
 * so an unreachable server means a fast 503.
 */
import { randomUUID } from 'node:crypto';
import {
  Client,
  WorkflowExecutionAlreadyStartedError,
  defaultPayloadConverter,
  type Connection,
  type DataConverter,
  type Payload as CommonPayload,
  type WorkflowExecutionDescription,
  type WorkflowHandle,
  type WorkflowStartOptions,
} from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow/index.js';
import type { PayloadCodec } from '@temporalio/common';
import proto, { type temporal } from '@temporalio/proto';
import { checkTaskAccess, type TaskAccess } from '../auth/principal.js';
import type { Config } from '../config.js';
import { Policies, type TaskTypePolicy } from '../policies.js';
import { SEARCH_ATTRIBUTES, TASK_WORKFLOW_TYPE, typeTaskQueuePrefix } from '../shared/constants.js';
import { DEFAULT_OWNER, parseWorkflowId, workflowIdOf } from '../shared/owner.js';
import type { TaskError, TaskSpec, TaskState, TaskStatus } from '../shared/task.js';
import { initialTaskState, ownerOf, TASK_STATUSES } from '../shared/task.js';
import { cancelSignal, rescheduleUpdate, statusQuery, type delayedTask } from '../workflows/delayed-task.js';
import {
  CallbackGuard,
  CallbackRefusedError,
  systemResolver,
  type Resolver,
} from '../security/callback-guard.js';
import { ApiError, ErrorCode, invalidArgument, taskNotFound } from '../errors.js';
import type {
  BatchJob,
  BulkCancelBody,
  BulkReplayBody,
  CreateTaskBody,
  ListTasksQuery,
  ReplayBody,
  RescheduleBody,
  Task,
  TaskList,
  TaskSummary,
} from '../contract/tasks.js';
import {
  buildTaskSpec,
  capped,
  checkPayload,
  checkPayloadSchema,
  digest,
  parseRfc3339,
  resolveWhen,
} from './task-input.js';
import { decodePageToken, encodePageToken } from './page-token.js';
import { isNotRunning, isNotStartedYet, temporalUnavailable, toApiError } from './temporal-errors.js';

type Payload = temporal.api.common.v1.IPayload;
const { WorkflowExecutionStatus, BatchOperationState, ResetReapplyExcludeType, EventType } =
  proto.temporal.api.enums.v1;

/** A task as the API finds it; `waiting`: its workflow has not run yet (start delay), with its input;
 * `busy`: read from the server's record while a callback attempt holds its workflow task. */
interface Lookup {
  state: TaskState;
  waiting?: TaskSpec;
  busy?: boolean;
}

export interface TaskServiceOptions {
  connection: Connection;
  config: Readonly<Config>;
  policies: Policies;
  now?: () => number;
  /** Resolves callback hosts at create (the SSRF guard); the system resolver by default. */
  resolve?: Resolver;
  /** Payload codec and failure converter (encryption); Temporal's defaults when absent. */
  dataConverter?: DataConverter;
}

/** A create that passed every check and has not touched Temporal yet. */
export interface PreparedCreate {
  readonly spec: TaskSpec;
  readonly fingerprint: string;
}

export interface CreateResult {
  task: Task;
  /** False: an identical task of this id existed (an idempotent repeat). */
  created: boolean;
}

/** How long a create waits for DNS before leaving the address check to send time. */
const CREATE_RESOLVE_TIMEOUT_MS = 2_000;

/**
 * How long a read waits for the workflow's own answer (its status query) before it looks whether the
 * workflow is busy with a callback attempt. Since workflow shape v2 an attempt runs as a local
 * activity inside a workflow task, and queries, signals and updates wait until that task ends (the
 * attempt's end, or the SDK's heartbeat of the task at 80% of its 10 s timeout).
 */
const BUSY_PATIENCE_MS = 250;

export class TaskService {
  private readonly client: Client;
  private readonly namespace: string;
  private readonly taskQueue: string;
  private readonly now: () => number;
  private readonly guard: CallbackGuard;
  private readonly codecs: PayloadCodec[];

  constructor(private readonly options: TaskServiceOptions) {
    this.namespace = options.config.temporal.namespace;
    this.taskQueue = options.config.temporal.taskQueue;
    this.client = new Client({
      connection: options.connection,
      namespace: this.namespace,
      ...(options.dataConverter ? { dataConverter: options.dataConverter } : {}),
    });
    this.now = options.now ?? Date.now;
    this.guard = new CallbackGuard(options.config.callbacks);
    this.codecs = options.dataConverter?.payloadCodecs ?? [];
  }

  /** The task-type policies requests are checked against. */
  get policies(): Policies {
    return this.options.policies;
  }

  /**
   * Creates a task for `access.owner`; the same id with the same spec returns the existing task
   * (`created: false`). Idempotency is per owner: another owner's task of the same id is another task.
   */
  async create(access: TaskAccess, body: CreateTaskBody): Promise<CreateResult> {
    return this.commit(await this.prepare(access, body));
  }

  /**
   * Every check of a create that needs no Temporal call: access, validation, the SSRF guard. A
   * batch prepares its items, then commits each one (src/api/batch-create.ts).
   */
  async prepare(access: TaskAccess, body: CreateTaskBody): Promise<PreparedCreate> {
    checkTaskAccess(access, { taskType: body.taskType });
    const policy = this.policyOf(body.taskType);
    const { callbackTaskQueue, localCallback } = Policies.routing(this.taskQueue, policy);
    const { spec, fingerprint } = buildTaskSpec(body, {
      owner: access.owner,
      now: this.now(),
      limits: this.options.config.limits,
      policy,
      callbackTaskQueue,
      localCallback,
      newTaskId: randomUUID,
      guard: this.guard,
    });
    checkTaskAccess(access, spec);
    await this.checkCallbackAddresses(spec.callbackUrl);
    return { spec, fingerprint };
  }

  /** Starts a prepared task's workflow, or answers the existing identical one. */
  async commit({ spec, fingerprint }: PreparedCreate): Promise<CreateResult> {
    try {
      await this.start(spec, fingerprint, workflowQueueOf(spec, this.taskQueue), 'REJECT_DUPLICATE');
      return { task: toTask(initialTaskState(spec)), created: true };
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw toApiError(err);
    }
    const existing = await this.call(
      () => this.client.workflow.getHandle(workflowIdOf(spec.owner, spec.taskId)).describe(),
      spec.taskId,
    );
    if (existing.type !== TASK_WORKFLOW_TYPE || existing.memo?.specHash !== fingerprint) {
      throw new ApiError(ErrorCode.TaskConflict, `task ${spec.taskId} exists with a different specification`);
    }
    return { task: await this.get(spec.owner, spec.taskId), created: false };
  }

  /** The SSRF guard on what the callback host resolves to now; send time checks again. */
  private async checkCallbackAddresses(callbackUrl: string): Promise<void> {
    const resolve = this.options.resolve ?? systemResolver;
    const bounded: Resolver = (hostname) =>
      Promise.race([
        resolve(hostname),
        new Promise<never>((_, reject) =>
          setTimeout(() => reject(new Error('DNS timed out')), CREATE_RESOLVE_TIMEOUT_MS).unref(),
        ),
      ]);
    try {
      await this.guard.checkResolved(new URL(callbackUrl), bounded);
    } catch (err) {
      if (err instanceof CallbackRefusedError) {
        // What a name resolves to inside our network is not the caller's to learn: the answer says
        // which rule refused, the log (the error's cause) has the address.
        const host = new URL(callbackUrl).hostname;
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
      throw err;
    }
  }

  /** A task of `owner`; another owner's task of this id answers 404 as an absent one does. */
  async get(owner: string, taskId: string): Promise<Task> {
    return toTask(await this.state(owner, taskId));
  }

  /** Cancels a SCHEDULED or RUNNING task; a CANCELLED one is a no-op; a finished one is a conflict. */
  async cancel(access: TaskAccess, taskId: string): Promise<Task> {
    const { state, waiting, busy } = await this.lookup(access.owner, taskId);
    checkTaskAccess(access, state);
    if (state.status === 'CANCELLED') return toTask(state);
    if (state.status === 'SUCCEEDED' || state.status === 'FAILED') {
      throw new ApiError(
        ErrorCode.FailedPrecondition,
        `task ${taskId} is ${state.status} and can no longer be cancelled`,
      );
    }
    const request = { reason: 'cancelled through the API' };
    try {
      await this.call<unknown>(
        () =>
          waiting
            ? // A plain signal would wait in history until the start delay is over; signal-with-start
              // runs the workflow now, so the task is CANCELLED at once (a closed run is not restarted).
              this.client.workflow.signalWithStart(TASK_WORKFLOW_TYPE, {
                ...taskStartOptions(
                  waiting,
                  fingerprintOf(waiting),
                  workflowQueueOf(waiting, this.taskQueue),
                  'REJECT_DUPLICATE',
                ),
                signal: cancelSignal,
                signalArgs: [request],
              })
            : this.client.workflow
                .getHandle(workflowIdOf(access.owner, taskId))
                .signal(cancelSignal, request),
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
    if (busy || waiting) return toTask(cancelledView(state, this.now()));
    return this.get(access.owner, taskId);
  }

  async reschedule(access: TaskAccess, taskId: string, body: RescheduleBody): Promise<Task> {
    const executeAt = new Date(resolveWhen(body, this.now(), this.options.config.limits)).toISOString();
    // The update goes straight to the workflow: only a key limited to some task types or callback
    // hosts reads the task first.
    if (access.allowedTaskTypes || access.allowedCallbackHosts) {
      checkTaskAccess(access, await this.state(access.owner, taskId));
    }
    try {
      const handle = this.client.workflow.getHandle(workflowIdOf(access.owner, taskId));
      const update = this.call(
        () => handle.executeUpdate(rescheduleUpdate, { args: [{ executeAt }] }),
        taskId,
      );
      // An update waits, like a query, while the workflow is busy with an attempt; the validator will
      // refuse it then without a trace (the task is no longer SCHEDULED): say so now.
      const state = await this.unlessBusy(update, handle, taskId, (busy) => {
        throw new ApiError(
          ErrorCode.FailedPrecondition,
          `only a SCHEDULED task can be rescheduled; this one is ${busy.status}`,
        );
      });
      if (ownerOf(state) !== access.owner) throw taskNotFound(taskId);
      return toTask(state);
    } catch (err) {
      if (err instanceof ApiError && err.code === ErrorCode.TaskNotFound) {
        // Updates cannot reach a closed run: tell "gone" from "finished".
        const state = await this.state(access.owner, taskId);
        throw new ApiError(
          ErrorCode.FailedPrecondition,
          `only a SCHEDULED task can be rescheduled; this one is ${state.status}`,
        );
      }
      throw err;
    }
  }

  /** Runs a FAILED or CANCELLED task again as a new run of the same workflow id. */
  async replay(access: TaskAccess, taskId: string, body: ReplayBody): Promise<Task> {
    const previous = await this.state(access.owner, taskId);
    checkTaskAccess(access, previous);
    if (previous.status !== 'FAILED' && previous.status !== 'CANCELLED') {
      throw new ApiError(
        ErrorCode.FailedPrecondition,
        `only a FAILED or CANCELLED task can be replayed; this one is ${previous.status}`,
      );
    }
    const policy = this.policyOf(previous.taskType);
    const limits = this.options.config.limits;
    const payload = (body.payload as Record<string, unknown> | undefined) ?? previous.payload;
    const payloadVersion = body.payloadVersion ?? previous.payloadVersion;
    if (body.payload) checkPayload(payload, limits);
    // An edited payload or version must keep the type's promise; an unchanged one replays as it was.
    if (body.payload || body.payloadVersion !== undefined)
      checkPayloadSchema(payload, payloadVersion, policy);
    const now = this.now();
    const { workflowTaskQueue, callbackTaskQueue, localCallback } = Policies.routing(this.taskQueue, policy);
    const spec: TaskSpec = {
      taskId,
      owner: access.owner,
      taskType: previous.taskType,
      payload,
      payloadVersion,
      executeAt: new Date(resolveWhen(body, now, limits, true)).toISOString(),
      callbackUrl: previous.callbackUrl,
      maxRetries:
        body.maxRetries === undefined
          ? previous.maxRetries
          : capped('maxRetries', body.maxRetries, policy.maxRetries),
      timeoutMs: previous.timeoutMs,
      traceId: previous.traceId,
      priority: previous.priority,
      createdAt: previous.createdAt,
      callbackTaskQueue,
      retryPolicy: policy.retry,
      localCallback,
      // The replayed task is the same effect at the receiver: the same key as its first run had.
      ...(previous.idempotencyKey !== undefined && { idempotencyKey: previous.idempotencyKey }),
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

  /**
   * One page of tasks from Temporal visibility, newest first, the latest run of each task only:
   * those of `owner`, or of every owner when undefined (admin).
   */
  async list(owner: string | undefined, query: Omit<ListTasksQuery, 'owner'>): Promise<TaskList> {
    const filters = [this.baseQuery()];
    if (owner !== undefined) filters.push(ownerFilter(owner));
    if (query.status) filters.push(`${SEARCH_ATTRIBUTES.taskStatus.name} = '${query.status}'`);
    if (query.taskType) filters.push(`${SEARCH_ATTRIBUTES.taskType.name} = '${query.taskType}'`);
    filters.push(...listFilters(owner, query));
    const visibilityQuery = filters.join(' AND ');
    const pageSize = query.pageSize ?? 50;
    const nextPageToken = query.pageToken ? decodePageToken(visibilityQuery, query.pageToken) : undefined;
    const listPage = (size: number, token: Uint8Array | undefined) =>
      this.call(() =>
        this.client.workflowService.listWorkflowExecutions({
          namespace: this.namespace,
          pageSize: size,
          nextPageToken: token,
          query: visibilityQuery,
        }),
      );
    const response = await listPage(pageSize, nextPageToken);
    const executions = response.executions ?? [];
    const latest = await Promise.all(executions.map((execution) => this.isLatestRun(execution)));
    const summaries = await Promise.all(
      executions
        .filter((_, i) => latest[i])
        .map(async (execution) => toSummary(await this.decodeMemo(execution))),
    );
    // Case-sensitive, whatever the visibility store: SQLite's and MySQL's STARTS_WITH ignore case.
    const { idPrefix } = query;
    const tasks = idPrefix ? summaries.filter((task) => task.taskId.startsWith(idPrefix)) : summaries;
    let following =
      response.nextPageToken && response.nextPageToken.length > 0 ? response.nextPageToken : undefined;
    // Visibility gives a token after every full page, also when nothing follows: look one row ahead,
    // so that the last page says it is the last instead of leading to an empty one.
    if (following && executions.length >= pageSize) {
      const ahead = await listPage(1, following);
      if ((ahead.executions ?? []).length === 0) following = undefined;
    }
    const token = following ? encodePageToken(visibilityQuery, following) : null;
    return { tasks, nextPageToken: token };
  }

  /** Replays every matching dead letter as one server-side batch reset. */
  async bulkReplay(body: BulkReplayBody): Promise<BatchJob> {
    const status = body.status ?? 'FAILED';
    const matching = this.filterQuery(body, [status]);
    // Visibility keeps every run, and a task replayed since still has its old FAILED run there.
    // Resetting such a run would run the task again: the batch leaves out all but the latest runs.
    const superseded = await this.supersededRuns(matching);
    const query =
      superseded.length > 0
        ? `${matching} AND RunId NOT IN (${superseded.map((runId) => `'${runId}'`).join(', ')})`
        : matching;
    return this.startBatch('replay', query, {
      resetOperation: {
        identity: 'delayed-task-api',
        options: {
          firstWorkflowTask: {},
          // A replayed task must not receive its old cancel signal again.
          resetReapplyExcludeTypes: [ResetReapplyExcludeType.RESET_REAPPLY_EXCLUDE_TYPE_SIGNAL],
        },
      },
    });
  }

  /**
   * Cancels every matching open task as one server-side batch of `cancel` signals; with
   * TASK_START_DELAY, of cancel requests (`temporal workflow cancel`): a signal would wait in the
   * history of a task not yet due, which would list as SCHEDULED until then, while a cancel request
   * runs its workflow at once.
   */
  async bulkCancel(body: BulkCancelBody): Promise<BatchJob> {
    const statuses: TaskStatus[] = body.status ? [body.status] : ['SCHEDULED', 'RUNNING'];
    const query = `${this.filterQuery(body, statuses)} AND ExecutionStatus = 'Running'`;
    const reason = 'bulk cancel through the API';
    if (this.options.config.temporal.startDelay) {
      return this.startBatch('cancel', query, {
        cancellationOperation: { identity: 'delayed-task-api' },
        reason,
      });
    }
    const [input] = await this.encode([defaultPayloadConverter.toPayload({ reason })]);
    return this.startBatch('cancel', query, {
      signalOperation: {
        signal: cancelSignal.name,
        identity: 'delayed-task-api',
        input: { payloads: [input!] },
      },
    });
  }

  async batch(jobId: string): Promise<BatchJob> {
    const response = await this.call(
      () => this.client.workflowService.describeBatchOperation({ namespace: this.namespace, jobId }),
      jobId,
    ).catch((err: unknown) => {
      // `call` reports Temporal's NOT_FOUND under the id it was given as a missing task: here, a missing job.
      if (err instanceof ApiError && err.code === ErrorCode.TaskNotFound) {
        throw new ApiError(ErrorCode.NotFound, `no batch job ${jobId}`);
      }
      throw err;
    });
    return toBatchJob(jobId, response);
  }

  /** Temporal answers and the namespace exists. */
  async ready(): Promise<void> {
    await this.call(() => this.client.workflowService.describeNamespace({ namespace: this.namespace }));
  }

  /** Count of tasks by status, from visibility: one query per status, whatever the number of tasks. */
  async countByStatus(statuses: readonly TaskStatus[]): Promise<Record<string, number>> {
    const counts = await Promise.all(
      statuses.map(async (status) => {
        const query = `${this.baseQuery()} AND ${SEARCH_ATTRIBUTES.taskStatus.name} = '${status}'${
          status === 'FAILED' ? '' : " AND ExecutionStatus = 'Running'"
        }`;
        const { count } = await this.call(() => this.client.workflow.count(query));
        return [status, count] as const;
      }),
    );
    return Object.fromEntries(counts);
  }

  /** Count of tasks that ended with `status` (SUCCEEDED, CANCELLED, FAILED) since `since` (ms). */
  async countClosedSince(status: TaskStatus, since: number): Promise<number> {
    const query = `${this.baseQuery()} AND ${SEARCH_ATTRIBUTES.taskStatus.name} = '${status}' AND ExecutionStatus != 'Running' AND CloseTime > '${new Date(since).toISOString()}'`;
    const { count } = await this.call(() => this.client.workflow.count(query));
    return count;
  }

  /** Number of open, scheduled tasks whose due time is before `before` (ms). */
  async countOverdue(before: number): Promise<number> {
    const query = `${this.baseQuery()} AND ExecutionStatus = 'Running' AND ${SEARCH_ATTRIBUTES.taskStatus.name} = 'SCHEDULED' AND ${
      SEARCH_ATTRIBUTES.executeAt.name
    } < '${new Date(before).toISOString()}'`;
    const { count } = await this.call(() => this.client.workflow.count(query));
    return count;
  }

  private policyOf(taskType: string): TaskTypePolicy {
    const policy = this.options.policies.forType(taskType);
    if (!policy) throw invalidArgument('taskType', 'is not a declared task type (the policy file is strict)');
    return policy;
  }

  /**
   * This service's tasks: those on the shared workflow queue (started before workflow shape v2) and
   * those on a task type's own queue (v2).
   */
  private baseQuery(): string {
    return `WorkflowType = '${TASK_WORKFLOW_TYPE}' AND (TaskQueue = '${this.taskQueue}' OR TaskQueue STARTS_WITH '${typeTaskQueuePrefix(this.taskQueue)}')`;
  }

  private filterQuery(
    { taskType, owner }: { taskType?: string | undefined; owner?: string | undefined },
    statuses: readonly TaskStatus[],
  ): string {
    const list = statuses.map((status) => `'${status}'`).join(', ');
    const parts = [this.baseQuery(), `${SEARCH_ATTRIBUTES.taskStatus.name} IN (${list})`];
    if (taskType) parts.push(`${SEARCH_ATTRIBUTES.taskType.name} = '${taskType}'`);
    if (owner !== undefined) parts.push(ownerFilter(owner));
    return parts.join(' AND ');
  }

  private async startBatch(
    operation: BatchJob['operation'],
    visibilityQuery: string,
    body: Pick<
      temporal.api.workflowservice.v1.IStartBatchOperationRequest,
      'resetOperation' | 'signalOperation' | 'cancellationOperation' | 'reason'
    >,
  ): Promise<BatchJob> {
    const { count } = await this.call(() => this.client.workflow.count(visibilityQuery));
    const jobId = `${operation}-${randomUUID()}`;
    // Started even when nothing matches, so that every job id answered can be followed.
    await this.call(() =>
      this.client.workflowService.startBatchOperation({
        namespace: this.namespace,
        jobId,
        reason: `${operation} through the API`,
        visibilityQuery,
        ...body,
      }),
    );
    return {
      jobId,
      operation,
      state: 'RUNNING',
      matched: count,
      completed: null,
      failed: null,
      startedAt: new Date(this.now()).toISOString(),
      closedAt: null,
    };
  }

  private async start(
    spec: TaskSpec,
    fingerprint: string,
    workflowTaskQueue: string,
    reuse: 'REJECT_DUPLICATE' | 'ALLOW_DUPLICATE',
  ): Promise<void> {
    await this.bounded(() =>
      this.client.workflow.start<typeof delayedTask>(
        TASK_WORKFLOW_TYPE,
        taskStartOptions(
          spec,
          fingerprint,
          workflowTaskQueue,
          reuse,
          this.options.config.temporal.startDelay ? this.now() : undefined,
        ),
      ),
    );
  }

  /** The task `taskId` of `owner`, from its workflow's status query (see `read`). */
  private async state(owner: string, taskId: string): Promise<TaskState> {
    return (await this.lookup(owner, taskId)).state;
  }

  /**
   * The task `taskId` of `owner`: the workflow's status query; while a start delay keeps the workflow
   * from running (the server refuses queries then), what its history holds so far; while a callback
   * attempt holds its workflow task (the query would wait for the attempt), the server's record.
   */
  private async lookup(owner: string, taskId: string): Promise<Lookup> {
    const workflowId = workflowIdOf(owner, taskId);
    const handle = this.client.workflow.getHandle(workflowId);
    const query = this.bounded(() => handle.query(statusQuery)).then((state): Lookup => ({ state }));
    let found: Lookup;
    try {
      found = await this.unlessBusy(
        query,
        handle,
        taskId,
        (state): Lookup => ({ state, busy: true }),
        () => this.waitingTask(workflowId, taskId),
      );
    } catch (err) {
      if (!isNotStartedYet(err)) throw toApiError(err, taskId);
      // Refused before its first workflow task; one may have been scheduled since: ask it again then.
      found = (await this.waitingTask(workflowId, taskId)) ?? (await this.lookup(owner, taskId));
    }
    // The workflow id already says the owner; a workflow started by hand under such an id does not count.
    if (ownerOf(found.state) !== owner) throw taskNotFound(taskId);
    return found;
  }

  /**
   * A task whose workflow has not run yet: SCHEDULED as its start input says, or CANCELLED once a
   * `cancel` signal or a cancel request is in its history (the workflow will honour it before anything
   * else when it runs, and never call back). Undefined once a workflow task has been scheduled.
   */
  private async waitingTask(workflowId: string, taskId: string): Promise<Lookup | undefined> {
    const { history } = await this.call(
      () =>
        this.client.workflowService.getWorkflowExecutionHistory({
          namespace: this.namespace,
          execution: { workflowId },
          maximumPageSize: 100,
        }),
      taskId,
    );
    const events = history?.events ?? [];
    // The workflow has run after all (a signal-with-start, an update): its own answer counts.
    if (events.some((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED)) return undefined;
    const spec = await this.startInput(events, workflowId, taskId);
    const state = initialTaskState(spec);
    const cancel = events.find(
      (event) =>
        event.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCEL_REQUESTED ||
        (event.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED &&
          event.workflowExecutionSignaledEventAttributes?.signalName === cancelSignal.name),
    );
    if (cancel) {
      state.status = 'CANCELLED';
      state.completedAt = timestampIso(cancel.eventTime) ?? new Date(this.now()).toISOString();
    }
    return { state, waiting: spec };
  }

  /**
   * `call`'s answer, unless it has not come after `BUSY_PATIENCE_MS` and the workflow turns out to be
   * busy with a callback attempt: then `whenBusy` of the task as the server's record shows it. Or,
   * with `whenWaiting`, the workflow still waits out its start delay (TASK_START_DELAY): the server
   * holds a query until the first workflow task when the delay ends within the query's deadline, so
   * a GET or a cancel would otherwise wait for the due time (and a cancel would come after the fire).
   */
  private async unlessBusy<T>(
    call: Promise<T>,
    handle: WorkflowHandle,
    taskId: string,
    whenBusy: (state: TaskState) => T,
    whenWaiting?: () => Promise<T | undefined>,
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
    const description = await this.call(() => handle.describe(), taskId).catch(() => undefined);
    if (!description) return call;
    if (whenWaiting && startDelayPending(description, this.now())) {
      const waiting = await whenWaiting();
      if (waiting !== undefined) {
        call.catch(() => undefined); // held by the server until the due time: no longer needed
        return waiting;
      }
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
    const due = description.typedSearchAttributes.get(SEARCH_ATTRIBUTES.executeAt);
    const recorded = description.typedSearchAttributes.get(SEARCH_ATTRIBUTES.taskStatus);
    if (!due || due.getTime() > this.now() || (recorded !== 'SCHEDULED' && recorded !== 'RUNNING')) {
      return undefined;
    }
    const { history } = await this.call(
      () =>
        this.client.workflowService.getWorkflowExecutionHistory({
          namespace: this.namespace,
          execution: { workflowId: description.workflowId, runId: description.runId },
          maximumPageSize: 1000,
        }),
      taskId,
    );
    const events = history?.events ?? [];
    const inFlight = events.at(-1);
    // An attempt only runs in a workflow task that started at or after the due time: a slow workflow
    // task that started before it (a loaded worker) is still going to sleep, not calling back.
    if (
      inFlight?.eventType !== EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED ||
      eventTimeMs(inFlight) < due.getTime()
    ) {
      return undefined;
    }
    const spec = await this.startInput(events, description.workflowId, taskId);
    const recordedAttempts = events.filter(
      (event) =>
        event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED ||
        (event.eventType === EventType.EVENT_TYPE_MARKER_RECORDED &&
          event.markerRecordedEventAttributes?.markerName === LOCAL_ACTIVITY_MARKER),
    ).length;
    const firedAt = events.find(
      (event) =>
        event.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED && eventTimeMs(event) >= due.getTime(),
    );
    const memoError = description.memo?.lastError as TaskError | null | undefined;
    return {
      ...initialTaskState(spec),
      executeAt: due.toISOString(),
      status: 'RUNNING',
      attempts: recordedAttempts + 1,
      lastError: memoError ?? null,
      firedAt: firedAt ? new Date(eventTimeMs(firedAt)).toISOString() : null,
    };
  }

  /** Runs matching `query` that are no longer the latest run of their task. */
  private async supersededRuns(query: string): Promise<string[]> {
    const superseded: string[] = [];
    let nextPageToken: Uint8Array | undefined;
    do {
      const token = nextPageToken;
      const response = await this.call(() =>
        this.client.workflowService.listWorkflowExecutions({
          namespace: this.namespace,
          pageSize: 1000,
          nextPageToken: token,
          query,
        }),
      );
      const executions = response.executions ?? [];
      for (let i = 0; i < executions.length; i += 100) {
        const chunk = executions.slice(i, i + 100);
        const latest = await Promise.all(chunk.map((execution) => this.isLatestRun(execution)));
        chunk.forEach((execution, j) => {
          if (!latest[j] && execution.execution?.runId) superseded.push(execution.execution.runId);
        });
      }
      nextPageToken =
        response.nextPageToken && response.nextPageToken.length > 0 ? response.nextPageToken : undefined;
    } while (nextPageToken);
    return superseded;
  }

  private async isLatestRun(execution: temporal.api.workflow.v1.IWorkflowExecutionInfo): Promise<boolean> {
    if (execution.status === WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING) return true;
    const workflowId = execution.execution?.workflowId ?? '';
    const description = await this.call(
      () => this.client.workflow.getHandle(workflowId).describe(),
      workflowId,
    ).catch(() => undefined);
    return !description || description.runId === execution.execution?.runId;
  }

  /** The task as its run was started: the input of the first event of `events`, decoded. */
  private async startInput(
    events: temporal.api.history.v1.IHistoryEvent[],
    workflowId: string,
    taskId: string,
  ): Promise<TaskSpec> {
    const payloads = events[0]?.workflowExecutionStartedEventAttributes?.input?.payloads;
    if (!payloads?.[0]) throw toApiError(new Error(`workflow ${workflowId} has no start input`), taskId);
    return decodeFromPayloadsAtIndex<TaskSpec>(this.client.options.loadedDataConverter, 0, payloads);
  }

  /** Payloads through the codecs (encryption), as the SDK would before sending them. */
  private async encode(payloads: Payload[]): Promise<Payload[]> {
    let encoded = payloads as CommonPayload[];
    for (const codec of this.codecs) encoded = await codec.encode(encoded);
    return encoded;
  }

  /** A raw visibility row's memo, decoded (the SDK only does this for its own list calls). */
  private async decodeMemo(
    execution: temporal.api.workflow.v1.IWorkflowExecutionInfo,
  ): Promise<temporal.api.workflow.v1.IWorkflowExecutionInfo> {
    const fields = execution.memo?.fields;
    if (!fields || this.codecs.length === 0) return execution;
    const names = Object.keys(fields);
    let payloads = names.map((name) => fields[name] as CommonPayload);
    for (const codec of [...this.codecs].reverse()) payloads = await codec.decode(payloads);
    return {
      ...execution,
      memo: { fields: Object.fromEntries(names.map((name, i) => [name, payloads[i]!])) },
    };
  }

  /** Runs a Temporal call under the API's deadline and maps its errors. */
  private async call<T>(fn: () => Promise<T>, taskId?: string): Promise<T> {
    try {
      return await this.bounded(fn);
    } catch (err) {
      throw toApiError(err, taskId);
    }
  }

  /**
   * Runs a Temporal call under the API's deadline and gives up at the deadline itself. The gRPC
   * deadline alone does not bound it: the SDK retries UNAVAILABLE with a backoff whose sleep runs on
   * past the deadline (a 5 s deadline answered after up to 9.8 s with the server down).
   */
  private async bounded<T>(fn: () => Promise<T>): Promise<T> {
    const { connection } = this.options;
    const timeoutMs = this.options.config.temporal.rpcTimeoutMs;
    const abort = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        abort.abort();
        reject(
          temporalUnavailable(
            new Error(`no answer from Temporal within TEMPORAL_RPC_TIMEOUT_MS (${timeoutMs} ms)`),
          ),
        );
      }, timeoutMs);
    });
    try {
      return await Promise.race([
        connection.withDeadline(Date.now() + timeoutMs, () => connection.withAbortSignal(abort.signal, fn)),
        expired,
      ]);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** An open run whose start delay (TASK_START_DELAY) is not over: no workflow task has been scheduled. */
function startDelayPending(description: WorkflowExecutionDescription, nowMs: number): boolean {
  return (
    description.status.name === 'RUNNING' &&
    description.executionTime !== undefined &&
    description.executionTime.getTime() > nowMs
  );
}

/**
 * How a task's workflow is started: workflow id = task id, search attributes and memo for listing,
 * and the summary the Web UI shows. Shared with the benchmark's direct-client system.
 */
export function taskStartOptions(
  spec: TaskSpec,
  fingerprint: string,
  taskQueue: string,
  reuse: 'REJECT_DUPLICATE' | 'ALLOW_DUPLICATE',
  /** With TASK_START_DELAY, now (ms): the workflow is started with a start delay up to its due time. */
  delayFrom?: number,
): WorkflowStartOptions<typeof delayedTask> {
  const startDelay = delayFrom === undefined ? 0 : Date.parse(spec.executeAt) - delayFrom;
  return {
    ...(startDelay > 0 ? { startDelay } : {}),
    workflowId: workflowIdOf(spec.owner, spec.taskId),
    taskQueue,
    args: [spec],
    workflowIdReusePolicy: reuse,
    // Workflow tasks of a saturated type wait on the server in priority order (shape v2: the
    // callback runs inside them); the callback activity of older tasks carries it as before.
    priority: { priorityKey: spec.priority },
    typedSearchAttributes: [
      { key: SEARCH_ATTRIBUTES.owner, value: spec.owner },
      { key: SEARCH_ATTRIBUTES.taskType, value: spec.taskType },
      { key: SEARCH_ATTRIBUTES.taskStatus, value: 'SCHEDULED' },
      { key: SEARCH_ATTRIBUTES.executeAt, value: new Date(spec.executeAt) },
    ],
    memo: {
      specHash: fingerprint,
      createdAt: spec.createdAt,
      callbackUrl: spec.callbackUrl,
      priority: spec.priority,
      executeAt: spec.executeAt,
    },
    staticSummary: `${spec.taskType} → POST ${spec.callbackUrl}, due ${spec.executeAt}`,
    staticDetails: [
      `**Owner:** ${spec.owner}, **task id:** ${spec.taskId}`,
      `**Task type:** ${spec.taskType}`,
      `**Callback:** POST ${spec.callbackUrl}`,
      `**Due:** ${spec.executeAt}`,
      `**Retries:** ${spec.maxRetries}, **timeout:** ${spec.timeoutMs} ms, **priority:** ${spec.priority}`,
    ].join('\n'),
  };
}

/**
 * Visibility filter of one owner's tasks. Tasks started before owners existed have no `Owner`
 * attribute and belong to `default`.
 */
function ownerFilter(owner: string): string {
  const attribute = SEARCH_ATTRIBUTES.owner.name;
  return owner === DEFAULT_OWNER
    ? `(${attribute} = '${DEFAULT_OWNER}' OR ${attribute} IS NULL)`
    : `${attribute} = '${owner}'`;
}

/**
 * The workflow task queue of a task: its type's queue for inputs written since workflow shape v2
 * (the same name as its callback queue), the shared queue for older ones.
 */
function workflowQueueOf(spec: TaskSpec, sharedQueue: string): string {
  return spec.localCallback === undefined ? sharedQueue : spec.callbackTaskQueue;
}

/** Name of the marker the SDK records for each local activity (a callback attempt of shape v2). */
const LOCAL_ACTIVITY_MARKER = 'core_local_activity';

function eventTimeMs(event: temporal.api.history.v1.IHistoryEvent): number {
  const time = event.eventTime;
  return time?.seconds != null ? Number(time.seconds) * 1000 + Math.floor((time.nanos ?? 0) / 1e6) : 0;
}

/** The task as its cancel signal settles it, for a workflow that reads the signal after its attempt. */
function cancelledView(state: TaskState, now: number): TaskState {
  return { ...state, status: 'CANCELLED', nextAttemptAt: null, completedAt: new Date(now).toISOString() };
}

function fingerprintOf(spec: TaskSpec): string {
  const {
    taskId: _id,
    createdAt: _created,
    callbackTaskQueue: _queue,
    localCallback: _local,
    ...rest
  } = spec;
  return digest(rest);
}

function timestampIso(ts: { seconds?: unknown; nanos?: number | null } | null | undefined): string | null {
  return ts?.seconds != null
    ? new Date(Number(ts.seconds) * 1000 + Math.floor((ts.nanos ?? 0) / 1e6)).toISOString()
    : null;
}

function toTask(state: TaskState): Task {
  return {
    taskId: state.taskId,
    owner: ownerOf(state),
    taskType: state.taskType,
    status: state.status,
    executeAt: state.executeAt,
    createdAt: state.createdAt,
    payload: state.payload,
    payloadVersion: state.payloadVersion,
    callbackUrl: state.callbackUrl,
    maxRetries: state.maxRetries,
    timeoutMs: state.timeoutMs,
    traceId: state.traceId,
    priority: state.priority,
    attempts: state.attempts,
    lastError: state.lastError,
    nextAttemptAt: state.nextAttemptAt,
    firedAt: state.firedAt,
    completedAt: state.completedAt,
    ...(state.attemptHistory && { attemptHistory: state.attemptHistory }),
  };
}

/**
 * Visibility clauses of the id prefix and due range of a list (values checked by the schema's
 * patterns, so they can sit in the query's quotes). The prefix matches workflow ids, which carry
 * the owner (`<owner>/<taskId>`): it needs one owner.
 */
function listFilters(
  owner: string | undefined,
  query: Pick<ListTasksQuery, 'idPrefix' | 'dueAfter' | 'dueBefore'>,
): string[] {
  const clauses: string[] = [];
  if (query.idPrefix) {
    if (owner === undefined) {
      throw invalidArgument(
        'idPrefix',
        "needs owner: task ids are unique per owner, so an admin listing every owner's tasks names one",
      );
    }
    clauses.push(`WorkflowId STARTS_WITH '${workflowIdOf(owner, query.idPrefix)}'`);
  }
  const due: Partial<Record<'dueAfter' | 'dueBefore', number>> = {};
  for (const field of ['dueAfter', 'dueBefore'] as const) {
    const text = query[field];
    if (text === undefined) continue;
    const at = parseRfc3339(text);
    if (at === undefined) {
      throw invalidArgument(
        field,
        'must be an RFC 3339 time with an offset (Z or +08:00), e.g. 2026-12-02T18:30:00+08:00',
      );
    }
    due[field] = at;
  }
  if (due.dueAfter !== undefined && due.dueBefore !== undefined && due.dueAfter >= due.dueBefore) {
    throw invalidArgument('dueBefore', 'must be later than dueAfter');
  }
  const attribute = SEARCH_ATTRIBUTES.executeAt.name;
  if (due.dueAfter !== undefined) clauses.push(`${attribute} >= '${new Date(due.dueAfter).toISOString()}'`);
  if (due.dueBefore !== undefined) clauses.push(`${attribute} < '${new Date(due.dueBefore).toISOString()}'`);
  return clauses;
}

function decode(payload: Payload | null | undefined): unknown {
  if (!payload) return undefined;
  try {
    return defaultPayloadConverter.fromPayload(payload);
  } catch {
    return undefined;
  }
}

function toSummary(execution: temporal.api.workflow.v1.IWorkflowExecutionInfo): TaskSummary {
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
    priority: typeof priority === 'number' ? priority : null,
    attempts: typeof attempts === 'number' ? attempts : 0,
    lastError: (decode(memo.lastError) as TaskError | null | undefined) ?? null,
    completedAt: text(decode(memo.completedAt)),
  };
}

function toBatchJob(
  jobId: string,
  response: temporal.api.workflowservice.v1.IDescribeBatchOperationResponse,
): BatchJob {
  const states: Record<number, string> = {
    [BatchOperationState.BATCH_OPERATION_STATE_RUNNING]: 'RUNNING',
    [BatchOperationState.BATCH_OPERATION_STATE_COMPLETED]: 'COMPLETED',
    [BatchOperationState.BATCH_OPERATION_STATE_FAILED]: 'FAILED',
  };
  const time = timestampIso;
  const num = (value: unknown) => (value == null ? null : Number(value));
  const state = states[response.state ?? 0] ?? 'UNSPECIFIED';
  const matched = num(response.totalOperationCount);
  return {
    jobId,
    operation: jobId.startsWith('cancel') ? 'cancel' : 'replay',
    state,
    // Temporal reports the total with the job's first progress report, seconds after its start:
    // until then a running job's 0 means "not counted yet", not "nothing matched".
    matched: state === 'RUNNING' && matched === 0 ? null : matched,
    completed: num(response.completeOperationCount),
    failed: num(response.failureOperationCount),
    startedAt: time(response.startTime),
    closedAt: time(response.closeTime),
  };
}
