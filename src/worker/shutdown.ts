/**
 * The worker process's graceful stop. On SIGTERM or SIGINT every Temporal worker stops polling and
 * the callbacks in flight run to their end: each is a local activity inside its task's workflow task,
 * and that workflow task completes with the attempt's outcome before the worker stops, so no other
 * worker sends the callback again. `/readyz` says 503 from the signal on (the workers are STOPPING).
 *
 * The SDK's grace cancels regular activities only, not local ones, and past its force time it gives
 * up as a `kill -9` would (the attempt's workflow task times out and another worker sends the
 * callback again). So when the grace runs out, `graceOver` aborts the attempts still in flight
 * ourselves: each ends as a failed attempt, recorded, retried after the backoff like any other, and
 * the worker then stops at once. A process still running a little later exits anyway.
 */
import type { Worker } from '@temporalio/worker';
import type { Logger } from '../observability/logger.js';
import { SHUTDOWN_FORCE_MARGIN_MS } from './workers.js';

export interface WorkerShutdownOptions {
  /** How long callbacks in flight may run on (`SHUTDOWN_GRACE_SECONDS`). */
  graceMs: number;
  logger: Logger;
}

/** Past the SDK's own force time: the process exits even if something else holds it open. */
const LAST_RESORT_MARGIN_MS = 5_000;

/** Why attempts in flight are aborted when the grace runs out (the attempt's error names it). */
export class ShutdownGraceOverError extends Error {
  override name = 'ShutdownGraceOverError';
}

export class WorkerShutdown {
  private readonly graceTimer = new AbortController();
  private began: number | undefined;

  constructor(private readonly options: WorkerShutdownOptions) {}

  /** Aborted when the grace after the signal runs out: the callbacks' `stopping` signal. */
  get graceOver(): AbortSignal {
    return this.graceTimer.signal;
  }

  /** Installs the SIGTERM and SIGINT handlers for these workers. */
  onSignals(workers: readonly Worker[]): void {
    process.on('SIGTERM', () => this.stop(workers, 'SIGTERM'));
    process.on('SIGINT', () => this.stop(workers, 'SIGINT'));
  }

  stop(workers: readonly Worker[], signal: string): void {
    if (this.began !== undefined) return;
    const began = Date.now();
    this.began = began;
    const { graceMs, logger } = this.options;
    logger.info(
      { signal, graceSeconds: graceMs / 1000 },
      'shutting down: polling stopped, draining in-flight callbacks',
    );
    for (const worker of workers) if (worker.getState() === 'RUNNING') worker.shutdown();
    setTimeout(() => {
      logger.warn(
        { graceSeconds: graceMs / 1000 },
        'shutdown grace over: cutting off callbacks still in flight',
      );
      this.graceTimer.abort(new ShutdownGraceOverError("the worker's shutdown grace ran out"));
    }, graceMs).unref();
    setTimeout(
      () => {
        logger.error({ graceSeconds: graceMs / 1000 }, 'still running past the shutdown grace: exiting now');
        process.exit(1);
      },
      graceMs + SHUTDOWN_FORCE_MARGIN_MS + LAST_RESORT_MARGIN_MS,
    ).unref();
    process.once('exit', (code) =>
      logger.info({ code, drainMs: Date.now() - began }, 'worker process exits'),
    );
  }
}
