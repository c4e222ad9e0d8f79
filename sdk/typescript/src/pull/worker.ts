/**
 * `PullWorker`: the shell around the lease verbs (conformance/pull/README.md), as Faktory's and
 * Pub/Sub's workers do it: a handler per task type, bounded concurrency, one long poll at a time
 * asking for the free slots, the lease extended every third of its time while the handler runs,
 * ack on return, nack on throw (`PermanentError`: not retryable), and a shutdown that stops leasing,
 * waits for the handlers in flight, then releases what still runs.
 */
import { hostname } from 'node:os';
import type { DelayedTasksClient } from '../client.js';
import { DelayedTaskError } from '../errors.js';
import { PermanentError } from '../receive/handler.js';
import { ClaimResult, type IdempotencyStore } from '../receive/idempotency.js';
import type { Lease, LeasedTask } from './types.js';

/** Runs one leased task; `signal` aborts when the lease was lost or handed back at shutdown. */
export type LeaseHandler = (task: LeasedTask, signal: AbortSignal) => Promise<void> | void;

export interface PullWorkerOptions {
  /** Queues to lease from. @defaultValue the registered task types, in order */
  queues?: string[];
  /** Handlers running at once. @defaultValue 10 */
  concurrency?: number;
  /** Long poll of one lease call, 0 to 20. @defaultValue 20 */
  waitSeconds?: number;
  /** Shown in a leased task's status. @defaultValue `<hostname>/<pid>` */
  workerIdentity?: string;
  /** Claims each task's `idempotencyKey` around its handler (DONE: ack, IN_PROGRESS: release). @defaultValue none */
  idempotencyStore?: IdempotencyStore;
  /** What `shutdown()` waits for the handlers in flight before releasing them. @defaultValue 30000 */
  shutdownTimeoutMs?: number;
  /** Sees the errors the worker goes on after: a failed lease call, ack, nack, extend or release. */
  onError?: (error: unknown, task?: LeasedTask) => void;
}

/** The nack reason of a task type without a handler (the receiver's 422 reason). */
const NO_HANDLER = 'no handler for task type';
/** The longest nack reason the service takes. */
const MAX_REASON = 2000;
/** Codes of a lease that is gone: stop extending, do not ack or nack. */
const LOST = new Set(['LEASE_EXPIRED', 'LEASE_NOT_FOUND', 'TASK_CANCELLED']);

interface InFlight {
  lease: Lease;
  /** Aborted when the lease is lost or handed back: the result is then not sent. */
  abort: AbortController;
  done: Promise<void>;
}

export class PullWorker {
  private readonly handlers = new Map<string, LeaseHandler>();
  private readonly inFlight = new Map<string, InFlight>();
  private readonly concurrency: number;
  private readonly options: PullWorkerOptions;
  private readonly stopping = new AbortController();
  private wakeUp: (() => void) | undefined;
  private running: Promise<void> | undefined;
  private stopped: Promise<void> | undefined;

  constructor(
    private readonly client: DelayedTasksClient,
    options: PullWorkerOptions = {},
  ) {
    this.options = options;
    this.concurrency = Math.max(1, options.concurrency ?? 10);
  }

  /** Registers the handler of one task type (once per type). */
  handle(taskType: string, handler: LeaseHandler): this {
    if (this.handlers.has(taskType)) throw new Error(`a handler for ${taskType} is already registered`);
    this.handlers.set(taskType, handler);
    return this;
  }

  /** Leases and runs tasks until `shutdown()`; resolves once the shutdown is over. */
  run(): Promise<void> {
    this.running ??= this.loop();
    return this.running;
  }

  /**
   * Stops leasing (ending the long poll), waits up to `timeoutMs` for the handlers in flight
   * (acked or nacked as usual), then releases the leases of those still running: another worker
   * gets them at once without spending an attempt.
   */
  shutdown(timeoutMs = this.options.shutdownTimeoutMs ?? 30_000): Promise<void> {
    this.stopped ??= this.drain(timeoutMs);
    return this.stopped;
  }

  private async loop(): Promise<void> {
    const queues = this.options.queues ?? [...this.handlers.keys()];
    if (queues.length === 0) throw new Error('register a handler (or give queues) before run()');
    const identity = this.options.workerIdentity ?? `${hostname()}/${process.pid}`;
    let failures = 0;
    while (!this.stopping.signal.aborted) {
      const free = this.concurrency - this.inFlight.size;
      if (free <= 0) {
        await new Promise<void>((resolve) => (this.wakeUp = resolve));
        continue;
      }
      let leases: Lease[];
      try {
        leases = await this.client.lease(
          {
            queues,
            max: Math.min(free, 10),
            waitSeconds: this.options.waitSeconds ?? 20,
            workerIdentity: identity,
          },
          { signal: this.stopping.signal },
        );
        failures = 0;
      } catch (err) {
        if (this.stopping.signal.aborted) break;
        this.options.onError?.(err);
        await this.pause(backoffMs(failures++));
        continue;
      }
      for (const lease of leases) this.start(lease);
    }
    await this.stopped;
  }

  private start(lease: Lease): void {
    const abort = new AbortController();
    const entry: InFlight = { lease, abort, done: Promise.resolve() };
    this.inFlight.set(lease.leaseToken, entry);
    entry.done = this.process(entry).finally(() => {
      this.inFlight.delete(lease.leaseToken);
      this.wakeUp?.();
    });
  }

  /** Claim (with a store), run with extensions, then complete/release the claim and ack/nack the lease. */
  private async process({ lease, abort }: InFlight): Promise<void> {
    const { task, leaseToken } = lease;
    const handler = this.handlers.get(task.taskType);
    if (!handler) {
      await this.settle(task, () => this.client.nack(leaseToken, { retryable: false, reason: NO_HANDLER }));
      return;
    }
    const store = this.options.idempotencyStore;
    let token: string | undefined;
    if (store) {
      const claim = await store.claim(task.idempotencyKey).catch((err: unknown) => err);
      if (!isClaim(claim)) {
        this.options.onError?.(claim, task);
        await this.settle(task, () => this.client.release(leaseToken));
        return;
      }
      if (claim.result === ClaimResult.DONE) return this.settle(task, () => this.client.ack(leaseToken));
      if (claim.result === ClaimResult.IN_PROGRESS) {
        return this.settle(task, () => this.client.release(leaseToken));
      }
      token = claim.token;
    }
    const stopExtending = this.extendWhileRunning(lease, abort);
    let failure: { error: unknown } | undefined;
    try {
      await handler(task, abort.signal);
    } catch (error) {
      failure = { error };
    } finally {
      stopExtending();
    }
    // The claim follows the effect, whatever became of the lease.
    if (store) {
      const marked = failure
        ? store.release(task.idempotencyKey, token ?? '')
        : store.complete(task.idempotencyKey);
      await marked.catch((err: unknown) => this.options.onError?.(err, task));
    }
    if (abort.signal.aborted) {
      if (failure) this.options.onError?.(failure.error, task);
      return;
    }
    if (!failure) return this.settle(task, () => this.client.ack(leaseToken));
    const { error } = failure;
    const reason = (error instanceof Error ? error.message : String(error)).slice(0, MAX_REASON);
    const retryable = !(error instanceof PermanentError);
    if (retryable) this.options.onError?.(error, task);
    return this.settle(task, () => this.client.nack(leaseToken, { retryable, reason }));
  }

  /** Extends every third of the time the lease has left; stops when the lease is gone. */
  private extendWhileRunning(lease: Lease, abort: AbortController): () => void {
    let timer: NodeJS.Timeout | undefined;
    let over = false;
    const schedule = () => {
      if (over) return;
      const delay = Math.max(50, (lease.task.leaseExpiresAt.getTime() - Date.now()) / 3);
      timer = setTimeout(() => void extend(), delay);
    };
    const extend = async () => {
      try {
        const { leaseExpiresAt } = await this.client.extend(lease.leaseToken);
        lease.leaseExpiresAt = leaseExpiresAt;
        lease.task.leaseExpiresAt = leaseExpiresAt;
      } catch (err) {
        this.options.onError?.(err, lease.task);
        if (err instanceof DelayedTaskError && LOST.has(err.code)) {
          abort.abort(err);
          return;
        }
      }
      schedule();
    };
    schedule();
    return () => {
      over = true;
      clearTimeout(timer);
    };
  }

  /** Sends an ack, nack or release; a failure is reported, and the worker goes on. */
  private async settle(task: LeasedTask, send: () => Promise<unknown>): Promise<void> {
    try {
      await send();
    } catch (err) {
      this.options.onError?.(err, task);
    }
  }

  private async drain(timeoutMs: number): Promise<void> {
    this.stopping.abort();
    this.wakeUp?.();
    const all = () => Promise.all([...this.inFlight.values()].map((entry) => entry.done));
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>(
      (resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)),
    );
    const outcome = await Promise.race([all(), timedOut]);
    clearTimeout(timer);
    if (outcome === 'timeout') {
      const left = [...this.inFlight.values()];
      for (const entry of left) entry.abort.abort(new Error('released at shutdown'));
      await Promise.all(
        left.map((entry) => this.settle(entry.lease.task, () => this.client.release(entry.lease.leaseToken))),
      );
    }
  }

  /** Waits `ms`, or less when the shutdown begins. */
  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.stopping.signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
    });
  }
}

/** 1 s doubling to 30 s, each between half and all of it. */
function backoffMs(failures: number): number {
  const ceiling = Math.min(30_000, 1000 * 2 ** failures);
  return ceiling / 2 + (Math.random() * ceiling) / 2;
}

function isClaim(value: unknown): value is { result: ClaimResult; token?: string } {
  return typeof value === 'object' && value !== null && 'result' in value;
}
