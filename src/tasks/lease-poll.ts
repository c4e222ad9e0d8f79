/**
 * The long poll of a lease call (docs/workers.md, "How it works"). Each queue has one chain of
 * `PollActivityTaskQueue` calls: a long poll until a first task, then short polls that take what is
 * ready now, one after another, while tasks keep coming. The answer goes once a task is held and
 * nothing came in for a moment (`BURST_QUIET_MS`), or at once with `max`.
 *
 * A poll is never cut short while it may be receiving a task: Temporal records the attempt as
 * started before it answers, so a task on its way to an aborted poll is held for the task's whole
 * `leaseSeconds` and charged an attempt (measured: 10 polls on a backlog of 25, aborted after the
 * first task came in: 15 tasks came back only as attempt 2 after their 60-s lease, 5 not within
 * 100 s). The short poll still open when the answer goes ends by itself
 * within `MIN_POLL_MS`; a task it receives after the answer is handed back at once without spending
 * an attempt. Only the first long polls of queues that gave nothing yet are aborted at the answer,
 * as a consumer that hangs up aborts its polls.
 */
import type { Connection } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import type { Lease } from '../contract/leases.js';
import type { DeliveryEnvelope } from '../shared/delivery.js';
import { pullQueue } from '../shared/task-queues.js';
import type { Policies } from '../task-types/policies.js';
import type { TemporalCalls } from '../temporal/calls.js';
import { grpcCode } from '../temporal/errors.js';
import { decodeStartArgument } from '../temporal/sdk-knowledge.js';
import type { LeaseTokens } from './lease-token.js';

type PollAnswer = temporal.api.workflowservice.v1.IPollActivityTaskQueueResponse;

const GRPC_DEADLINE_EXCEEDED = 4;
/**
 * The shortest poll deadline: the frontend refuses a long poll under 2 s, and matching answers empty
 * about a second before the deadline, so `waitSeconds: 0` answers after about a second.
 */
const MIN_POLL_MS = 2_100;
/**
 * How long the answer waits after the last task came in, for the next short poll to bring what else
 * is ready (a backlog comes in a few milliseconds a task). One due task is answered this much after
 * it arrived.
 */
const BURST_QUIET_MS = 20;
/**
 * A first task that took longer than this to come found its queue empty: it fell due during the
 * poll, and nothing else is ready behind it. Such a call answers it at once and opens no short poll:
 * a short poll left open after the answer takes the next due task from the consumers' own long
 * polls only to hand it back, and a task handed back again and again meets the release bound's
 * waits (at 20 tasks/s over 4 consumers: p99 9 s, before this).
 */
const BACKLOG_MS = 50;

export interface LeasePollerOptions {
  temporal: TemporalCalls;
  connection: Connection;
  policies: Policies;
  baseQueue: string;
  tokens: LeaseTokens;
  now: () => number;
  /** Hands a task back unhandled (no attempt spent); never throws. */
  release: (owner: string, leaseToken: string) => Promise<void>;
}

export interface LeaseCall {
  owner: string;
  /** Distinct queue names of `owner`. */
  queues: string[];
  max: number;
  waitMs: number;
  identity: string;
  /** Aborted when the consumer hung up: everything received is handed back. */
  gone: AbortSignal;
}

export class LeasePoller {
  constructor(private readonly options: LeasePollerOptions) {}

  /** Up to `max` tasks from `queues`, or none after `waitMs`. */
  collect(call: LeaseCall): Promise<Lease[]> {
    const { owner, max, gone } = call;
    const firstWait = new AbortController();
    const held: Lease[] = [];
    let open = call.queues.length;
    let decoding = 0;
    let done = false;
    let quiet: NodeJS.Timeout | undefined;
    return new Promise<Lease[]>((resolve, reject) => {
      const finish = (error?: Error) => {
        if (done) return;
        done = true;
        clearTimeout(quiet);
        firstWait.abort();
        if (gone.aborted) this.handBack(owner, held.splice(0));
        if (error && held.length === 0) reject(error);
        else resolve(held);
      };
      const answerWhenQuiet = () => {
        clearTimeout(quiet);
        if (done) return;
        if (held.length >= max || open === 0 || gone.aborted) finish();
        else if (held.length > 0 && decoding === 0) quiet = setTimeout(() => finish(), BURST_QUIET_MS);
      };
      /** One poll; true when it brought a task that is now held. */
      const take = async (queue: string, waitMs: number, abort: AbortSignal): Promise<boolean> => {
        const answer = await this.receive(owner, queue, call.identity, waitMs, abort);
        if (!answer) return false;
        decoding++;
        clearTimeout(quiet);
        let lease: Lease;
        try {
          lease = await this.toLease(owner, queue, answer);
        } finally {
          decoding--;
        }
        // Received after the answer went or the consumer left: handed back, no attempt spent.
        if (done || gone.aborted || held.length >= max) {
          this.handBack(owner, [lease]);
          return false;
        }
        held.push(lease);
        answerWhenQuiet();
        return true;
      };
      const chain = async (queue: string) => {
        const first = AbortSignal.any([gone, firstWait.signal]);
        const started = this.options.now();
        if (!(await take(queue, Math.max(call.waitMs, MIN_POLL_MS), first))) return;
        // A task that fell due during the poll came alone: answered as it is (see BACKLOG_MS).
        if (this.options.now() - started > BACKLOG_MS) return;
        // Then what is ready now: short polls that end by themselves, aborted only by a hang-up.
        while (!done && held.length < max && (await take(queue, MIN_POLL_MS, gone)));
      };
      for (const queue of call.queues) {
        chain(queue)
          .catch((err: unknown) => {
            if (!gone.aborted && !done) finish(err as Error);
          })
          .finally(() => {
            open--;
            answerWhenQuiet();
          });
      }
    });
  }

  private handBack(owner: string, leases: Lease[]): void {
    for (const lease of leases) void this.options.release(owner, lease.leaseToken);
  }

  /** One poll: Temporal's answer with a task, or undefined at its deadline or when aborted. */
  private async receive(
    owner: string,
    queue: string,
    identity: string,
    waitMs: number,
    abort: AbortSignal,
  ): Promise<PollAnswer | undefined> {
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
      // The poll's own deadline, or the call answered or the consumer gone: no task.
      if (abort.aborted || grpcCode(err) === GRPC_DEADLINE_EXCEEDED) return undefined;
      throw err;
    }
    return answer.taskToken && answer.taskToken.length > 0 ? answer : undefined;
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
      leaseSeconds,
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
}
