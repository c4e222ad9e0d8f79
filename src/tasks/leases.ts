/**
 * Pull delivery's leases (docs/workers.md): a pull task's attempt is an activity on its owner's pull
 * queue that no worker of ours polls. A lease long-polls that queue for the consumer through the
 * Temporal client's workflow service; ack, nack, extend and release answer the activity task. Every
 * state lives in Temporal (matching, the pending activity, its heartbeat timeout) and in the sealed
 * token: any API replica settles a lease another one took.
 */
import { ApplicationFailure, type Connection } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import type { TaskAccess } from '../auth/principal.js';
import { checkLeaseAccess } from '../auth/pull-access.js';
import {
  LEASE_LIMITS,
  type Lease,
  type LeaseOutcome,
  type LeaseRequest,
  type NackBody,
} from '../contract/leases.js';
import { ApiError, ErrorCode } from '../errors/catalog.js';
import type { DeliveryEnvelope } from '../shared/delivery.js';
import { parseWorkflowId } from '../shared/owner.js';
import { pullQueue } from '../shared/task-queues.js';
import { CallbackFailureType } from '../shared/task.js';
import type { Policies } from '../task-types/policies.js';
import type { TemporalCalls } from '../temporal/calls.js';
import { grpcCode, toApiError } from '../temporal/errors.js';
import {
  decodeStartArgument,
  encodeActivityFailure,
  encodeActivityPayloads,
} from '../temporal/sdk-knowledge.js';
import type { LeaseClaims, LeaseTokens } from './lease-token.js';
import type { TaskReader } from './reader.js';

type PollAnswer = temporal.api.workflowservice.v1.IPollActivityTaskQueueResponse;

const GRPC_NOT_FOUND = 5;
/**
 * A poll that should take only what is ready: the shortest deadline the frontend accepts for a long
 * poll is 2 s, and matching answers empty about a second before the deadline.
 */
const READY_ONLY_POLL_MS = 2_100;

export interface LeaseServiceOptions {
  temporal: TemporalCalls;
  connection: Connection;
  policies: Policies;
  baseQueue: string;
  tokens: LeaseTokens;
  reader: TaskReader;
  now: () => number;
}

export class LeaseService {
  constructor(private readonly options: LeaseServiceOptions) {}

  /**
   * Long-polls the caller's queues until a task comes or `waitSeconds` pass; then takes what else is
   * ready, up to `max`. `gone` aborts when the consumer hung up: a task received after that is
   * released (handed back without spending an attempt).
   */
  async lease(access: TaskAccess, request: LeaseRequest, gone: AbortSignal): Promise<Lease[]> {
    const queues = [...new Set(request.queues)];
    checkLeaseAccess(access, queues);
    const max = request.max ?? LEASE_LIMITS.max.default;
    const waitMs = (request.waitSeconds ?? LEASE_LIMITS.waitSeconds.default) * 1000;
    const identity = request.workerIdentity ?? 'anonymous';
    const leases: Lease[] = [];
    const stop = new AbortController();
    const abort = AbortSignal.any([gone, stop.signal]);
    // One poll per queue; the first task ends the wait (Temporal's matching cannot poll two queues).
    const first = await new Promise<Lease | undefined>((resolve, reject) => {
      let open = queues.length;
      for (const queue of queues) {
        this.pollOnce(access.owner, queue, identity, Math.max(waitMs, READY_ONLY_POLL_MS), abort)
          .then((lease) => {
            if (!lease) return;
            if (leases.length === 0 && !gone.aborted) {
              leases.push(lease);
              resolve(lease);
            } else if (leases.length < max && !gone.aborted) {
              leases.push(lease);
            } else {
              void this.releaseQuietly(lease.leaseToken, access.owner);
            }
          })
          .catch((err: unknown) => {
            if (!abort.aborted) reject(err as Error);
          })
          .finally(() => {
            if (--open === 0) resolve(undefined);
          });
      }
    });
    stop.abort();
    if (!first) return [];
    // Then what is ready now, queue by queue, without waiting for more.
    for (const queue of queues) {
      while (leases.length < max && !gone.aborted) {
        const lease = await this.pollOnce(access.owner, queue, identity, READY_ONLY_POLL_MS, gone).catch(
          () => undefined,
        );
        if (!lease) break;
        leases.push(lease);
      }
    }
    if (gone.aborted) {
      for (const lease of leases) void this.releaseQuietly(lease.leaseToken, access.owner);
      return [];
    }
    return leases;
  }

  async ack(owner: string, leaseToken: string): Promise<LeaseOutcome> {
    const claims = this.claimsOf(owner, leaseToken);
    const { temporal } = this.options;
    const result = await encodeActivityPayloads(temporal.client.options.loadedDataConverter, {});
    await this.settle(claims, () =>
      temporal.client.workflowService.respondActivityTaskCompleted({
        namespace: temporal.namespace,
        taskToken: Buffer.from(claims.taskToken, 'base64'),
        result: result ? { payloads: result } : null,
      }),
    );
    return { taskId: parseWorkflowId(claims.workflowId).taskId, status: 'SUCCEEDED' };
  }

  async nack(owner: string, body: NackBody): Promise<LeaseOutcome> {
    const claims = this.claimsOf(owner, body.leaseToken);
    const retryable = body.retryable ?? true;
    await this.fail(
      claims,
      retryable ? CallbackFailureType.Nacked : CallbackFailureType.NackedPermanent,
      body.reason ?? (retryable ? 'nacked by the worker' : 'nacked by the worker as permanent'),
    );
    return { taskId: parseWorkflowId(claims.workflowId).taskId, status: retryable ? 'RUNNING' : 'FAILED' };
  }

  /** Hands the task back unhandled: no attempt spent, leased again at once. */
  async release(owner: string, leaseToken: string): Promise<LeaseOutcome> {
    const claims = this.claimsOf(owner, leaseToken);
    await this.fail(claims, CallbackFailureType.Released, 'released by the worker');
    return { taskId: parseWorkflowId(claims.workflowId).taskId, status: 'RUNNING' };
  }

  /** Renews the lease for its `leaseSeconds` from now (a heartbeat of the attempt). */
  async extend(owner: string, leaseToken: string): Promise<{ leaseExpiresAt: string }> {
    const claims = this.claimsOf(owner, leaseToken);
    const { temporal } = this.options;
    const answer = await this.settle(claims, () =>
      temporal.client.workflowService.recordActivityTaskHeartbeat({
        namespace: temporal.namespace,
        taskToken: Buffer.from(claims.taskToken, 'base64'),
      }),
    );
    if (answer.cancelRequested) throw taskCancelled(claims);
    return { leaseExpiresAt: new Date(this.options.now() + claims.leaseSeconds * 1000).toISOString() };
  }

  private async pollOnce(
    owner: string,
    queue: string,
    identity: string,
    waitMs: number,
    abort: AbortSignal,
  ): Promise<Lease | undefined> {
    const { temporal, connection, policies, baseQueue } = this.options;
    if (abort.aborted) return undefined;
    // A queue named for a rate-limited type is leased at the type's rate (a rate-limited type's tasks
    // use their own queue only: src/tasks/input.ts), as its callbacks are sent at it.
    const rate = policies.forType(queue)?.ratePerSecond;
    let answer: PollAnswer;
    try {
      answer = await connection.withDeadline(this.options.now() + waitMs, () =>
        connection.withAbortSignal(abort, () =>
          temporal.client.workflowService.pollActivityTaskQueue({
            namespace: temporal.namespace,
            taskQueue: { name: pullQueue(baseQueue, owner, queue) },
            identity,
            ...(rate !== undefined && { taskQueueMetadata: { maxTasksPerSecond: { value: rate } } }),
          }),
        ),
      );
    } catch (err) {
      // The poll's own deadline, or the consumer gone: no task.
      if (abort.aborted || grpcCode(err) === 4) return undefined;
      throw err;
    }
    if (!answer.taskToken || answer.taskToken.length === 0) return undefined;
    const lease = await this.toLease(owner, queue, answer);
    if (abort.aborted && lease) {
      // Received after the consumer left or the answer was sent: handed back, no attempt spent.
      void this.releaseQuietly(lease.leaseToken, owner);
      return undefined;
    }
    return lease;
  }

  private async toLease(owner: string, queue: string, answer: PollAnswer): Promise<Lease> {
    const { temporal } = this.options;
    // The attempt's one argument, decoded as a start's first argument is (codecs, then converter).
    const envelope = await decodeStartArgument<DeliveryEnvelope>(
      temporal.client.options.loadedDataConverter,
      answer.input?.payloads ?? [],
    );
    const leaseSeconds = Number(answer.heartbeatTimeout?.seconds ?? 0) || 60;
    const workflowId = answer.workflowExecution?.workflowId ?? '';
    const leaseToken = this.options.tokens.seal({
      owner,
      workflowId,
      attempt: envelope.attempt,
      queue,
      leaseSeconds,
      taskToken: Buffer.from(answer.taskToken!).toString('base64'),
    });
    return {
      leaseToken,
      leaseExpiresAt: new Date(this.options.now() + leaseSeconds * 1000).toISOString(),
      task: {
        taskId: envelope.taskId,
        taskType: envelope.taskType,
        queue,
        payload: envelope.payload,
        payloadVersion: envelope.payloadVersion,
        executeAt: envelope.executeAt,
        attempt: envelope.attempt,
        idempotencyKey: envelope.idempotencyKey ?? envelope.taskId,
        traceId: envelope.traceId,
        ...(envelope.schedule && { schedule: envelope.schedule }),
      },
    };
  }

  private async fail(claims: LeaseClaims, type: string, message: string): Promise<void> {
    const { temporal } = this.options;
    // The workflow owns retries: the attempt's failure is final for the activity, whatever the type.
    const failure = await encodeActivityFailure(
      temporal.client.options.loadedDataConverter,
      ApplicationFailure.create({ type, message, nonRetryable: true }),
    );
    await this.settle(claims, () =>
      temporal.client.workflowService.respondActivityTaskFailed({
        namespace: temporal.namespace,
        taskToken: Buffer.from(claims.taskToken, 'base64'),
        failure,
      }),
    );
  }

  private async releaseQuietly(leaseToken: string, owner: string): Promise<void> {
    await this.release(owner, leaseToken).catch(() => undefined);
  }

  /** The token's claims for `owner`; another owner's token answers as an absent lease. */
  private claimsOf(owner: string, leaseToken: string): LeaseClaims {
    const claims = this.options.tokens.open(leaseToken);
    if (claims.owner !== owner) throw leaseNotFound();
    return claims;
  }

  /**
   * Runs an answer to the lease's activity task. Temporal says NOT_FOUND for a task token that no
   * longer names a pending attempt: read the task to say why (cancelled, expired, or settled).
   */
  private async settle<T>(claims: LeaseClaims, call: () => Promise<T>): Promise<T> {
    const { temporal } = this.options;
    try {
      return await temporal.bounded(call);
    } catch (err) {
      if (grpcCode(err) !== GRPC_NOT_FOUND) throw toApiError(err);
    }
    const { owner, taskId } = parseWorkflowId(claims.workflowId);
    const state = await this.options.reader.state(owner, taskId).catch(() => undefined);
    if (!state) throw leaseNotFound();
    if (state.status === 'CANCELLED') throw taskCancelled(claims);
    if ((state.status === 'SUCCEEDED' || state.status === 'FAILED') && state.attempts === claims.attempt) {
      throw leaseNotFound();
    }
    throw new ApiError(
      ErrorCode.LeaseExpired,
      `the lease of task ${taskId} (attempt ${claims.attempt}) expired: the task was retried or handed to another worker`,
    );
  }
}

function leaseNotFound(): ApiError {
  return new ApiError(ErrorCode.LeaseNotFound, 'no such lease (or it was already settled)');
}

function taskCancelled(claims: LeaseClaims): ApiError {
  const { taskId } = parseWorkflowId(claims.workflowId);
  return new ApiError(ErrorCode.TaskCancelled, `task ${taskId} was cancelled while leased; drop the work`);
}
