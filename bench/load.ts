/**
 * Load generators, bounded in count and time: an open loop at a fixed rate, and a closed loop of
 * concurrent clients. Both record which creates the system acknowledged.
 */
import { sleep } from './infra/wait.js';
import { summarize, type Summary } from './stats.js';
import type { BenchTask, System } from './systems/system.js';

export interface LoadOutcome {
  /** Tasks the system acknowledged. */
  created: BenchTask[];
  failures: number;
  firstError: string | undefined;
  startedMs: number;
  endedMs: number;
  /** Acknowledged creates per second over the whole load. */
  createdPerSec: number;
  /** Time of one create, ms. */
  latencyMs: Summary | undefined;
}

/** Builds task number `i`, sent at `sentMs`. */
export type MakeTask = (i: number, sentMs: number) => BenchTask;

class Tally {
  readonly created: BenchTask[] = [];
  readonly latencies: number[] = [];
  failures = 0;
  firstError: string | undefined;
  readonly startedMs = Date.now();

  async create(system: System, task: BenchTask): Promise<void> {
    const began = performance.now();
    try {
      await system.create(task);
      this.latencies.push(performance.now() - began);
      this.created.push(task);
    } catch (err) {
      this.failures++;
      this.firstError ??= err instanceof Error ? err.message : String(err);
    }
  }

  outcome(): LoadOutcome {
    const endedMs = Date.now();
    return {
      created: this.created,
      failures: this.failures,
      firstError: this.firstError,
      startedMs: this.startedMs,
      endedMs,
      createdPerSec: this.created.length / Math.max(0.001, (endedMs - this.startedMs) / 1000),
      latencyMs: summarize(this.latencies),
    };
  }
}

/**
 * Open loop: task `i` is due to be sent at start + i/rate; at most `maxInFlight` creates outstanding
 * (a system that falls behind gets the backlog as fast as it takes it). Stops at `count` tasks or
 * after `timeLimitMs`, whichever comes first.
 */
export async function atRate(
  system: System,
  {
    rate,
    count,
    maxInFlight,
    timeLimitMs,
  }: { rate: number; count: number; maxInFlight: number; timeLimitMs: number },
  make: MakeTask,
): Promise<LoadOutcome> {
  const tally = new Tally();
  const inFlight = new Set<Promise<void>>();
  const start = tally.startedMs;
  for (let i = 0; i < count;) {
    const now = Date.now();
    if (now - start > timeLimitMs) break;
    const due = Math.min(count, Math.floor(((now - start) * rate) / 1000) + 1);
    while (i < due && inFlight.size < maxInFlight) {
      const pending: Promise<void> = tally
        .create(system, make(i++, Date.now()))
        .finally(() => inFlight.delete(pending));
      inFlight.add(pending);
    }
    if (inFlight.size >= maxInFlight) await Promise.race(inFlight);
    else await sleep(Math.min(20, start + (i * 1000) / rate - Date.now()));
  }
  await Promise.all(inFlight);
  return tally.outcome();
}

/** Closed loop: `concurrency` clients create back to back until `count` tasks or `timeLimitMs`. */
export async function withConcurrency(
  system: System,
  { concurrency, count, timeLimitMs }: { concurrency: number; count: number; timeLimitMs: number },
  make: MakeTask,
): Promise<LoadOutcome> {
  const tally = new Tally();
  const deadline = tally.startedMs + timeLimitMs;
  let next = 0;
  const client = async () => {
    while (next < count && Date.now() < deadline) await tally.create(system, make(next++, Date.now()));
  };
  await Promise.all(Array.from({ length: concurrency }, client));
  return tally.outcome();
}
