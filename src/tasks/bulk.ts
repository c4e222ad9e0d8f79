/**
 * Operations on every matching task at once, run by the server as batch operations: replay of dead
 * letters (a reset) and cancel (signals, or cancel requests for tasks waiting out a start delay).
 */
import { randomUUID } from 'node:crypto';
import { defaultPayloadConverter } from '@temporalio/client';
import proto, { type temporal } from '@temporalio/proto';
import type { BatchJob, BulkCancelBody, BulkReplayBody } from '../contract/batches.js';
import { ApiError, ErrorCode } from '../errors/catalog.js';
import type { TaskStatus } from '../shared/task.js';
import type { TemporalCalls } from '../temporal/calls.js';
import { cancelSignal } from '../workflows/delayed-task.js';
import type { VisibilityQuery } from './query.js';
import { timestampIso } from './views.js';
import type { TaskVisibility } from './visibility.js';

const { BatchOperationState, ResetReapplyExcludeType } = proto.temporal.api.enums.v1;
const IDENTITY = 'delayed-task-api';

type Operation = Pick<
  temporal.api.workflowservice.v1.IStartBatchOperationRequest,
  'resetOperation' | 'signalOperation'
>;

export class BulkOperations {
  constructor(
    private readonly temporal: TemporalCalls,
    private readonly visibility: TaskVisibility,
    private readonly now: () => number,
  ) {}

  /** Replays every matching dead letter as one server-side batch reset. */
  async replay(body: BulkReplayBody): Promise<BatchJob> {
    const matching = this.matching(body, [body.status ?? 'FAILED']);
    // Visibility keeps every run, and a task replayed since still has its old FAILED run there.
    // Resetting such a run would run the task again: the batch leaves out all but the latest runs.
    const superseded = await this.visibility.supersededRuns(matching);
    return this.start('replay', matching.noneOf('runId', superseded), {
      resetOperation: {
        identity: IDENTITY,
        options: {
          firstWorkflowTask: {},
          // A replayed task must not receive its old cancel signal again.
          resetReapplyExcludeTypes: [ResetReapplyExcludeType.RESET_REAPPLY_EXCLUDE_TYPE_SIGNAL],
        },
      },
    });
  }

  /**
   * Cancels every matching open task as one server-side batch of `cancel` signals. A task started
   * with a start delay by an earlier version (the retired TASK_START_DELAY) and not yet due keeps the
   * signal in its history: GET says CANCELLED at once and it never calls back, but it lists as
   * SCHEDULED until its due time, when its workflow runs and honours the signal first.
   */
  async cancel(body: BulkCancelBody): Promise<BatchJob> {
    const statuses: TaskStatus[] = body.status ? [body.status] : ['SCHEDULED', 'RUNNING'];
    const query = this.matching(body, statuses).open();
    const reason = 'bulk cancel through the API';
    const [input] = await this.temporal.encode([defaultPayloadConverter.toPayload({ reason })]);
    return this.start('cancel', query, {
      signalOperation: { signal: cancelSignal.name, identity: IDENTITY, input: { payloads: [input!] } },
    });
  }

  async describe(jobId: string): Promise<BatchJob> {
    const response = await this.temporal
      .call(
        () =>
          this.temporal.client.workflowService.describeBatchOperation({
            namespace: this.temporal.namespace,
            jobId,
          }),
        jobId,
      )
      .catch((err: unknown) => {
        // `call` reports Temporal's NOT_FOUND under the id it was given as a missing task: here, a missing job.
        if (err instanceof ApiError && err.code === ErrorCode.TaskNotFound) {
          throw new ApiError(ErrorCode.NotFound, `no batch job ${jobId}`);
        }
        throw err;
      });
    return toBatchJob(jobId, response);
  }

  private matching(
    { taskType, owner }: { taskType?: string | undefined; owner?: string | undefined },
    statuses: readonly TaskStatus[],
  ): VisibilityQuery {
    let query = this.visibility.tasks().oneOf('taskStatus', statuses);
    if (taskType) query = query.is('taskType', taskType);
    return owner === undefined ? query : query.owner(owner);
  }

  private async start(
    operation: BatchJob['operation'],
    query: VisibilityQuery,
    body: Operation,
  ): Promise<BatchJob> {
    const matched = await this.visibility.count(query);
    const jobId = `${operation}-${randomUUID()}`;
    // Started even when nothing matches, so that every job id answered can be followed.
    await this.temporal.call(() =>
      this.temporal.client.workflowService.startBatchOperation({
        namespace: this.temporal.namespace,
        jobId,
        reason: `${operation} through the API`,
        visibilityQuery: query.toString(),
        ...body,
      }),
    );
    return {
      jobId,
      operation,
      state: 'RUNNING',
      matched,
      completed: null,
      failed: null,
      startedAt: new Date(this.now()).toISOString(),
      closedAt: null,
    };
  }
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
    startedAt: timestampIso(response.startTime),
    closedAt: timestampIso(response.closeTime),
  };
}
