/** Waiting for callbacks to land at the receiver, bounded in time, with an early way out. */
import { sleep } from './infra/wait.js';
import type { Receiver } from './receiver-client.js';
import type { BenchTask } from './systems/system.js';

export interface AwaitOptions {
  /** Arrivals expected (tasks × attempts). */
  expected: number;
  /** Give up at this time, epoch ms. */
  deadlineMs: number;
  /**
   * Stop early once more than 1% of the tasks due over `lagLimitMs` ago have not arrived: the p99 lag
   * is then over the limit whatever comes next.
   */
  failFast?: { tasks: readonly BenchTask[]; lagLimitMs: number };
}

/** Resolves with why it stopped: everything arrived, the deadline, or a certain failure. */
export async function awaitArrivals(
  receiver: Receiver,
  run: string,
  { expected, deadlineMs, failFast }: AwaitOptions,
): Promise<'complete' | 'deadline' | 'failing'> {
  const dues = failFast ? failFast.tasks.map((task) => task.executeAtMs).sort((a, b) => a - b) : [];
  for (;;) {
    const arrived = await receiver.count(run);
    if (arrived >= expected) return 'complete';
    if (Date.now() > deadlineMs) return 'deadline';
    if (failFast) {
      const overdue = countBefore(dues, Date.now() - failFast.lagLimitMs);
      if (overdue - arrived > Math.max(1, dues.length * 0.01)) return 'failing';
    }
    await sleep(250);
  }
}

/** Number of ascending `sorted` values below `limit`. */
function countBefore(sorted: readonly number[], limit: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (sorted[mid]! < limit) low = mid + 1;
    else high = mid;
  }
  return low;
}
