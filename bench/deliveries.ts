/** What arrived at the receiver against what was created: lag, throughput, duplicates, losses, retry gaps. */
import type { Arrival } from './receiver-client.js';
import { summarize, type Summary } from './stats.js';
import type { BenchTask } from './systems/system.js';

export interface Deliveries {
  created: number;
  /** Tasks with a 2xx arrival. */
  delivered: number;
  /** Tasks due before the end of the wait with no 2xx arrival (lost, or late if the wait was cut short). */
  undelivered: number;
  /** Tasks not yet due when the wait ended (left out of everything else). */
  notDue: number;
  /** 2xx arrivals beyond the first of a task, and any arrival after a task's 2xx. */
  duplicates: number;
  /** First arrival minus due time, ms; a task that never arrived counts as Infinity (JSON null). */
  lagMs: Summary | undefined;
  /** Successful callbacks per second, from the first due time to the last arrival. */
  deliveredPerSec: number;
  /** From the last due time to the last 2xx arrival, ms. */
  lastLandedAfterDueMs: number;
  /** Gap between attempt k and k+1 of a task (index 0: first to second), ms. */
  retryGapsMs: (Summary | undefined)[];
}

/** Compares what was created with what arrived by `endedMs` (the end of the wait). */
export function analyze(
  created: readonly BenchTask[],
  arrivals: readonly Arrival[],
  endedMs = Infinity,
): Deliveries {
  const byTask = new Map<string, Arrival[]>();
  for (const arrival of arrivals) {
    const list = byTask.get(arrival.taskId) ?? [];
    byTask.set(arrival.taskId, list);
    list.push(arrival);
  }
  const lags: number[] = [];
  const gaps: number[][] = [];
  let delivered = 0;
  let duplicates = 0;
  let firstDue = Infinity;
  let lastDue = -Infinity;
  let lastArrival = -Infinity;
  let notDue = 0;
  for (const task of created) {
    if (task.executeAtMs > endedMs) {
      notDue++;
      continue;
    }
    firstDue = Math.min(firstDue, task.executeAtMs);
    lastDue = Math.max(lastDue, task.executeAtMs);
    const list = (byTask.get(task.taskId) ?? []).sort((a, b) => a.arrivedMs - b.arrivedMs);
    if (list.length === 0) {
      lags.push(Infinity);
      continue;
    }
    lags.push(list[0]!.arrivedMs - task.executeAtMs);
    list.forEach((arrival, k) => {
      if (k > 0) (gaps[k - 1] ??= []).push(arrival.arrivedMs - list[k - 1]!.arrivedMs);
    });
    const firstSuccess = list.findIndex((arrival) => arrival.status >= 200 && arrival.status < 300);
    if (firstSuccess < 0) continue;
    delivered++;
    duplicates += list.length - 1 - firstSuccess;
    lastArrival = Math.max(lastArrival, list[firstSuccess]!.arrivedMs);
  }
  return {
    created: created.length,
    delivered,
    undelivered: created.length - notDue - delivered,
    notDue,
    duplicates,
    lagMs: summarize(lags),
    deliveredPerSec: delivered > 0 ? delivered / Math.max(0.001, (lastArrival - firstDue) / 1000) : 0,
    lastLandedAfterDueMs: delivered > 0 ? lastArrival - lastDue : NaN,
    retryGapsMs: gaps.map((values) => summarize(values)),
  };
}

/**
 * Fire lag of the tasks due in each span of `spanMs` from `startMs`, to see whether lag drifts over
 * a long run. `spans` of them: a task due after the last span counts in it (delays carry a run's
 * last tasks past its end), one due before the first in the first.
 */
export function lagBySpan(
  created: readonly BenchTask[],
  arrivals: readonly Arrival[],
  {
    startMs,
    spanMs,
    spans,
    endedMs = Infinity,
  }: { startMs: number; spanMs: number; spans: number; endedMs?: number },
): (Summary | undefined)[] {
  const groups: BenchTask[][] = Array.from({ length: spans }, () => []);
  for (const task of created) {
    const k = Math.floor((task.executeAtMs - startMs) / spanMs);
    groups[Math.min(spans - 1, Math.max(0, k))]!.push(task);
  }
  return groups.map((group) => analyze(group, arrivals, endedMs).lagMs);
}
