/**
 * The worker process's readiness: every one of its Temporal workers runs, and Temporal answers within
 * the deadline. A worker that stopped (one task type's callbacks, say) is named by its task queue.
 */
import type { Worker } from '@temporalio/worker';

export interface WorkerReadinessOptions {
  /** The process's workers, whatever their number and queues. */
  workers: () => readonly Worker[];
  /** Asks Temporal something cheap (describe the namespace). */
  checkTemporal: () => Promise<unknown>;
  /** Longest wait for Temporal's answer; a silent server means not ready, not a hung probe. */
  timeoutMs: number;
}

export class NotReadyError extends Error {
  override name = 'NotReadyError';
}

/** Resolves when ready; rejects with a reason naming what is not. */
export function workerReadiness(options: WorkerReadinessOptions): () => Promise<void> {
  return async () => {
    const stopped = options.workers().filter((worker) => worker.getState() !== 'RUNNING');
    if (stopped.length > 0) {
      const names = stopped.map((worker) => `${worker.options.taskQueue} (${worker.getState()})`);
      throw new NotReadyError(`worker(s) not running, by task queue: ${names.join(', ')}`);
    }
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        options.checkTemporal(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new NotReadyError(`Temporal did not answer within ${options.timeoutMs} ms`)),
            options.timeoutMs,
          );
        }),
      ]);
    } catch (err) {
      if (err instanceof NotReadyError) throw err;
      throw new NotReadyError(
        `Temporal is unreachable or the namespace is missing: ${(err as Error).message}`,
        {
          cause: err,
        },
      );
    } finally {
      clearTimeout(timer);
    }
  };
}
