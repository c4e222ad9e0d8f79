/** Pull delivery's types (conformance/pull/README.md): wire names, times as `Date`. */
import type { Payload } from '../checks.js';
import type { CallbackSchedule } from '../receive/parse.js';
import type { TaskStatus } from '../types.js';

/** `POST /api/v1/leases`: only the fields given are sent (the service's defaults otherwise). */
export interface LeaseRequest {
  /** 1 to 10 queue names. */
  queues: string[];
  /** 1 to 10 (the service's default: 1). */
  max?: number;
  /** 0 to 20 seconds of long poll (the service's default: 20). */
  waitSeconds?: number;
  /** At most 200 characters, shown in the task's status while leased. */
  workerIdentity?: string;
}

/** The task of a lease, as the handler gets it. */
export interface LeasedTask {
  taskId: string;
  taskType: string;
  queue: string;
  payload: Payload;
  payloadVersion: number;
  executeAt: Date;
  /** 1 for the first attempt. */
  attempt: number;
  /** The same on every attempt of the task, after a replay too: the key to dedupe on. */
  idempotencyKey: string;
  traceId: string | null;
  /** Set when the task is an occurrence of a schedule; null for a one-shot task. */
  schedule: CallbackSchedule | null;
  /** Until when the lease holds (the worker moves it on at each extension). */
  leaseExpiresAt: Date;
}

export interface Lease {
  /** Opaque; what ack, nack, extend and release take. */
  leaseToken: string;
  leaseExpiresAt: Date;
  task: LeasedTask;
}

/** `POST /api/v1/leases/nack`: only the fields given are sent. */
export interface NackRequest {
  /** `false` dead-letters the task at once (the service's default: true, the retry policy applies). */
  retryable?: boolean;
  /** At most 2,000 characters: the task's `lastError.message`. */
  reason?: string;
}

/** What ack, nack and release answer. */
export interface LeaseResult {
  taskId: string;
  status: TaskStatus;
}

/** What extend answers: the lease runs `leaseSeconds` from now. */
export interface ExtendResult {
  leaseExpiresAt: Date;
}

interface WireLease {
  leaseToken: string;
  leaseExpiresAt: string;
  task: Omit<LeasedTask, 'executeAt' | 'schedule' | 'leaseExpiresAt'> & {
    executeAt: string;
    schedule?: { scheduleId: string; scheduledAt: string } | null;
  };
}

/** A lease as answered, with its times as `Date`. */
export function leaseOf(wire: WireLease): Lease {
  const leaseExpiresAt = new Date(wire.leaseExpiresAt);
  const { schedule, executeAt, ...task } = wire.task;
  return {
    leaseToken: wire.leaseToken,
    leaseExpiresAt,
    task: {
      ...task,
      traceId: task.traceId ?? null,
      executeAt: new Date(executeAt),
      schedule: schedule
        ? { scheduleId: schedule.scheduleId, scheduledAt: new Date(schedule.scheduledAt) }
        : null,
      leaseExpiresAt,
    },
  };
}

export type { WireLease };
