/**
 * Pull delivery's routes (docs/workers.md; the wire: conformance/pull/README.md). Scope `tasks:lease`;
 * a call acts on the key's owner's pull queues and leases only.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrorBodySchema } from '../../contract/common.js';
import {
  ExtendAnswerSchema,
  LeaseOutcomeSchema,
  LeaseRequestSchema,
  LeasesSchema,
  LeaseTokenBodySchema,
  NackBodySchema,
} from '../../contract/leases.js';
import { ApiError, ErrorCode } from '../../errors/catalog.js';
import type { LeaseService } from '../../tasks/leases.js';
import type { LeasedTaskTimes, LeaseOutcomeLabel } from '../metrics.js';

type SettleOutcome = Exclude<LeaseOutcomeLabel, 'leased'>;

export interface LeaseRoutesOptions {
  leases: LeaseService;
  /** Each task handed to a consumer (the metrics: src/api/metrics.ts). */
  onLeased?: (task: LeasedTaskTimes) => void;
  /** Each ack, nack, extend or release answered, or refused for an expired, cancelled or unknown lease. */
  onSettled?: (outcome: SettleOutcome) => void;
}

/** The settle refusals worth counting: the consumer's lease, not the request, was wrong. */
const REFUSALS: Partial<Record<ErrorCode, SettleOutcome>> = {
  [ErrorCode.LeaseExpired]: 'expired',
  [ErrorCode.TaskCancelled]: 'cancelled',
  [ErrorCode.LeaseNotFound]: 'refused',
  [ErrorCode.InvalidArgument]: 'refused',
};

const errors = {
  400: ErrorBodySchema,
  401: ErrorBodySchema,
  403: ErrorBodySchema,
  404: ErrorBodySchema,
  409: ErrorBodySchema,
  429: ErrorBodySchema,
  500: ErrorBodySchema,
  503: ErrorBodySchema,
};

const TOKEN_ERRORS =
  "A malformed or altered token answers 400 INVALID_ARGUMENT naming leaseToken; another owner's token, or one already settled, 404 LEASE_NOT_FOUND; an expired lease 409 LEASE_EXPIRED; a task cancelled while leased 409 TASK_CANCELLED.";

export const leaseRoutes: FastifyPluginAsyncTypebox<LeaseRoutesOptions> = async (
  app,
  { leases, onLeased, onSettled },
) => {
  /** Runs a settle call and reports its outcome, or its refusal; other errors are the HTTP metrics'. */
  async function counted<T>(outcome: SettleOutcome, settle: () => Promise<T>): Promise<T> {
    let answer: T;
    try {
      answer = await settle();
    } catch (err) {
      const refusal = err instanceof ApiError ? REFUSALS[err.code] : undefined;
      if (refusal) onSettled?.(refusal);
      throw err;
    }
    onSettled?.(outcome);
    return answer;
  }

  app.post(
    '/api/v1/leases',
    {
      config: { scope: 'tasks:lease' },
      schema: {
        operationId: 'leaseTasks',
        tags: ['leases'],
        summary: 'Lease due pull tasks (long poll)',
        description:
          "Waits up to waitSeconds for a due task on the key's owner's pull queues; answers as soon as one is leased, with whatever else is ready up to max, or with no lease at the end of the wait. A key limited to task types leases only queues its patterns match (403 naming the queue). A task received after the caller hung up is handed back without spending an attempt.",
        body: LeaseRequestSchema,
        response: { 200: LeasesSchema, ...errors },
      },
    },
    async (request, reply) => {
      // The consumer hanging up closes the response before it is written: the poll is aborted.
      const gone = new AbortController();
      const onClose = () => {
        if (!reply.raw.writableFinished) gone.abort();
      };
      reply.raw.once('close', onClose);
      try {
        const leased = await leases.lease(request.principal, request.body, gone.signal);
        for (const { task } of leased) onLeased?.(task);
        return { leases: leased };
      } finally {
        reply.raw.off('close', onClose);
      }
    },
  );

  app.post(
    '/api/v1/leases/ack',
    {
      config: { scope: 'tasks:lease' },
      schema: {
        operationId: 'ackLease',
        tags: ['leases'],
        summary: 'Acknowledge a leased task: it SUCCEEDED',
        description: TOKEN_ERRORS,
        body: LeaseTokenBodySchema,
        response: { 200: LeaseOutcomeSchema, ...errors },
      },
    },
    async (request) => counted('acked', () => leases.ack(request.principal.owner, request.body.leaseToken)),
  );

  app.post(
    '/api/v1/leases/nack',
    {
      config: { scope: 'tasks:lease' },
      schema: {
        operationId: 'nackLease',
        tags: ['leases'],
        summary: 'Fail a leased task: retried with its backoff, or dead-lettered (retryable: false)',
        description: `The reason becomes the task's lastError.message. ${TOKEN_ERRORS}`,
        body: NackBodySchema,
        response: { 200: LeaseOutcomeSchema, ...errors },
      },
    },
    async (request) =>
      counted(request.body.retryable === false ? 'nacked_permanent' : 'nacked_retryable', () =>
        leases.nack(request.principal.owner, request.body),
      ),
  );

  app.post(
    '/api/v1/leases/extend',
    {
      config: { scope: 'tasks:lease' },
      schema: {
        operationId: 'extendLease',
        tags: ['leases'],
        summary: "Renew a lease for the task's leaseSeconds from now",
        description: TOKEN_ERRORS,
        body: LeaseTokenBodySchema,
        response: { 200: ExtendAnswerSchema, ...errors },
      },
    },
    async (request) =>
      counted('extended', () => leases.extend(request.principal.owner, request.body.leaseToken)),
  );

  app.post(
    '/api/v1/leases/release',
    {
      config: { scope: 'tasks:lease' },
      schema: {
        operationId: 'releaseLease',
        tags: ['leases'],
        summary: 'Hand a leased task back unhandled: no attempt spent, leased again at once',
        description: `Past the third release of one attempt the task waits 1 s, doubling to 60 s, before it is offered again; the 15th release counts as a failed attempt (retried with the task's backoff). ${TOKEN_ERRORS}`,
        body: LeaseTokenBodySchema,
        response: { 200: LeaseOutcomeSchema, ...errors },
      },
    },
    async (request) =>
      counted('released', () => leases.release(request.principal.owner, request.body.leaseToken)),
  );
};
