/**
 * Pull delivery's leases (docs/workers.md): a pull task's attempt is an activity on its owner's pull
 * queue that no worker of ours polls. A lease long-polls that queue for the consumer through the
 * Temporal client's workflow service; ack, nack, extend and release answer the activity task. Every
 * state lives in Temporal (matching, the pending activity, its heartbeat timeout) and in the sealed
 * token: any API replica settles a lease another one took.
 */
import { ApplicationFailure, type Connection } from '@temporalio/client';
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
import { parseWorkflowId } from '../shared/owner.js';
import { CallbackFailureType } from '../shared/task.js';
import type { Policies } from '../task-types/policies.js';
import type { TemporalCalls } from '../temporal/calls.js';
import { grpcCode, toApiError } from '../temporal/errors.js';
import { encodeActivityFailure, encodeActivityPayloads } from '../temporal/sdk-knowledge.js';
import { LeasePoller } from './lease-poll.js';
import type { LeaseClaims, LeaseTokens } from './lease-token.js';
import type { TaskReader } from './reader.js';

const GRPC_NOT_FOUND = 5;

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
  private readonly poller: LeasePoller;

  constructor(private readonly options: LeaseServiceOptions) {
    this.poller = new LeasePoller({
      ...options,
      // A task received for a call that had answered, or whose consumer left: handed back (no
      // attempt spent, and not counted by the release bound: src/workflows/deliver.ts).
      release: (owner, leaseToken) =>
        Promise.resolve()
          .then(() =>
            this.fail(
              this.claimsOf(owner, leaseToken),
              CallbackFailureType.HandedBack,
              'handed back by the service',
            ),
          )
          .then(
            () => undefined,
            () => undefined,
          ),
    });
  }

  /**
   * Long-polls the caller's queues until a task comes or `waitSeconds` pass, answering at once with
   * what is held, up to `max` (src/tasks/lease-poll.ts). `gone` aborts when the consumer hung up: a
   * task received after that is released (handed back without spending an attempt).
   */
  async lease(access: TaskAccess, request: LeaseRequest, gone: AbortSignal): Promise<Lease[]> {
    const queues = [...new Set(request.queues)];
    checkLeaseAccess(access, queues);
    return this.poller.collect({
      owner: access.owner,
      queues,
      max: request.max ?? LEASE_LIMITS.max.default,
      waitMs: (request.waitSeconds ?? LEASE_LIMITS.waitSeconds.default) * 1000,
      identity: request.workerIdentity ?? 'anonymous',
      gone,
    });
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
