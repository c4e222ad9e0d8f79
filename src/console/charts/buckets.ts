/**
 * Time buckets for the console's charts, and a counter that fills them with few visibility queries.
 * Pure: the count function is handed in, so the same code serves the due-time forecast (ExecuteAt
 * ranges of SCHEDULED tasks) and the outcomes per hour (CloseTime ranges per status).
 */

/** A half-open time range [start, end) and what was counted in it. */
export interface Bucket {
  start: Date;
  end: Date;
  count: number;
}

/** `n` consecutive ranges of `stepMs` each, the first starting at `from`. */
export function ranges(from: Date, stepMs: number, n: number): { start: Date; end: Date }[] {
  return Array.from({ length: n }, (_, i) => ({
    start: new Date(from.getTime() + i * stepMs),
    end: new Date(from.getTime() + (i + 1) * stepMs),
  }));
}

/** `at` rounded down to a whole multiple of `stepMs` since the epoch (whole minutes, whole hours). */
export function floorTo(at: Date, stepMs: number): Date {
  return new Date(Math.floor(at.getTime() / stepMs) * stepMs);
}

export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;

/** The forecast's two rows: the next hour by minute, the next 24 hours by hour (both from `now`). */
export function forecastRanges(now: Date): {
  byMinute: { start: Date; end: Date }[];
  byHour: { start: Date; end: Date }[];
} {
  return {
    byMinute: ranges(floorTo(now, MINUTE_MS), MINUTE_MS, 60),
    byHour: ranges(floorTo(now, HOUR_MS), HOUR_MS, 24),
  };
}

/** The last 24 whole hours up to and including the current one, oldest first. */
export function lastHours(now: Date, hours = 24): { start: Date; end: Date }[] {
  const current = floorTo(now, HOUR_MS);
  return ranges(new Date(current.getTime() - (hours - 1) * HOUR_MS), HOUR_MS, hours);
}

export type CountRange = (start: Date, end: Date) => Promise<number>;

/** Thrown when filling buckets would take more count queries than the page may spend. */
export class CountBudgetExceeded extends Error {
  override readonly name = 'CountBudgetExceeded';
  constructor(readonly budget: number) {
    super(`more than ${budget} count queries needed`);
  }
}

/**
 * Counts each range with as few queries as a sparse backlog allows: the whole span is counted once,
 * and a span is split in two only while it holds tasks, so empty stretches cost one query whatever
 * their length. A herd in every bucket costs about twice the bucket count; `budget` bounds the
 * queries (the caller shows the chart as unavailable rather than hammering visibility). The spans of
 * one level are asked in parallel.
 */
export async function countBuckets(
  spans: { start: Date; end: Date }[],
  count: CountRange,
  budget: number,
): Promise<{ buckets: Bucket[]; queries: number }> {
  const counts = new Array<number>(spans.length).fill(0);
  let queries = 0;
  const ask = async (from: number, to: number): Promise<number> => {
    if (++queries > budget) throw new CountBudgetExceeded(budget);
    return count(spans[from]!.start, spans[to - 1]!.end);
  };
  // Level by level: the spans of one level are split with their queries in parallel, so a busy
  // chart takes about log2(bars) round trips, not one per bar.
  let level: [number, number, number][] =
    spans.length > 0 ? [[0, spans.length, await ask(0, spans.length)]] : [];
  while (level.length > 0) {
    const busy = level.filter(([, , total]) => total > 0);
    for (const [from, to, total] of busy) if (to - from === 1) counts[from] = total;
    const split = busy.filter(([from, to]) => to - from > 1);
    const lefts = await Promise.all(split.map(([from, to]) => ask(from, Math.floor((from + to) / 2))));
    level = split.flatMap(([from, to, total], i): [number, number, number][] => {
      const middle = Math.floor((from + to) / 2);
      return [
        [from, middle, lefts[i]!],
        [middle, to, Math.max(0, total - lefts[i]!)],
      ];
    });
  }
  return { buckets: spans.map((span, i) => ({ ...span, count: counts[i]! })), queries };
}

/** How many of `times` (ms since the epoch) fall in each range; times outside every range are left out. */
export function bucketTimes(spans: { start: Date; end: Date }[], times: readonly number[]): Bucket[] {
  return spans.map((span) => ({
    ...span,
    count: times.filter((at) => at >= span.start.getTime() && at < span.end.getTime()).length,
  }));
}
