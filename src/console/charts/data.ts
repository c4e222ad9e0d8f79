/**
 * The numbers behind the console's charts, counted through visibility: scheduled tasks by due time
 * (the next hour by minute, the next 24 hours by hour) and tasks closed per hour by outcome over the
 * last 24 hours. Each chart fills its buckets by halving (src/console/charts/buckets.ts) within a
 * budget of count queries; a chart over budget is shown as unavailable. Results are kept for a
 * short time per scope, so a page refreshed by many operators costs one round of queries.
 */
import type { TaskFilter, TaskVisibility } from '../../tasks/visibility.js';
import type { TaskStatus } from '../../shared/task.js';
import {
  bucketTimes,
  countBuckets,
  CountBudgetExceeded,
  forecastRanges,
  lastHours,
  type Bucket,
} from './buckets.js';
import type { Upcoming } from './occurrences.js';

export const OUTCOMES = ['SUCCEEDED', 'FAILED', 'CANCELLED'] as const satisfies readonly TaskStatus[];
export type Outcome = (typeof OUTCOMES)[number];

export interface ChartData {
  /** Undefined: over its query budget (a herd in nearly every bucket); the page says so. */
  dueByMinute: Bucket[] | undefined;
  dueByHour: Bucket[] | undefined;
  /**
   * Upcoming schedule occurrences in the same buckets, apart from the one-shot tasks (which they are
   * not yet: each becomes a task when it fires); undefined when the API serves no schedules.
   */
  occurrences: { byMinute: Bucket[]; byHour: Bucket[]; schedules: number; truncated: boolean } | undefined;
  /** Per hour, oldest first; undefined as above. */
  outcomes: { start: Date; end: Date; counts: Record<Outcome, number> }[] | undefined;
  /** Count queries this answer cost when it was computed. */
  queries: number;
  computedAt: Date;
}

export interface ChartCountsOptions {
  /** How long an answer is reused for the same scope. @defaultValue 15 s (the overview's refresh) */
  ttlMs?: number;
  /** Count queries one chart may spend, per bucket. @defaultValue 2 (a herd in every bucket fits) */
  queriesPerBucket?: number;
  now?: () => number;
  /** The next run times of the schedules in a filter (from Temporal's describe); none: no schedules. */
  upcoming?: (filter: TaskFilter) => Promise<Upcoming>;
}

type Counter = Pick<TaskVisibility, 'countDue' | 'countClosed'>;

export class ChartCounts {
  private readonly cache = new Map<string, { at: number; data: Promise<ChartData> }>();
  private readonly ttlMs: number;
  private readonly perBucket: number;
  private readonly now: () => number;
  private readonly upcoming: ChartCountsOptions['upcoming'];

  constructor(
    private readonly visibility: Counter,
    options: ChartCountsOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? 15_000;
    this.perBucket = options.queriesPerBucket ?? 2;
    this.now = options.now ?? Date.now;
    this.upcoming = options.upcoming;
  }

  /**
   * The charts of `filter` (one owner's tasks unless admin; one type's or every type's; only a limited
   * key's types). The cache is per filter, limits included: a limited key never gets another's answer.
   */
  load(filter: TaskFilter): Promise<ChartData> {
    const key = [filter.owner ?? '*', filter.taskType ?? '*', ...(filter.taskTypes ?? ['*'])].join('\u0000');
    const now = this.now();
    const cached = this.cache.get(key);
    if (cached && now - cached.at < this.ttlMs) return cached.data;
    const data = this.compute(filter, new Date(now));
    this.cache.set(key, { at: now, data });
    data.catch(() => this.cache.delete(key));
    // Old entries go when the map grows: filters are owners × types, a bounded set in practice.
    if (this.cache.size > 1000) {
      for (const [k, entry] of this.cache) if (now - entry.at >= this.ttlMs) this.cache.delete(k);
    }
    return data;
  }

  private async compute(filter: TaskFilter, now: Date): Promise<ChartData> {
    const { byMinute, byHour } = forecastRanges(now);
    const hours = lastHours(now);
    let queries = 0;
    const fill = async (
      spans: { start: Date; end: Date }[],
      count: (s: Date, e: Date) => Promise<number>,
    ) => {
      try {
        const result = await countBuckets(spans, count, spans.length * this.perBucket);
        queries += result.queries;
        return result.buckets;
      } catch (err) {
        if (!(err instanceof CountBudgetExceeded)) throw err;
        queries += err.budget;
        return undefined;
      }
    };
    const due = (start: Date, end: Date) => this.visibility.countDue(start.getTime(), end.getTime(), filter);
    const closed = (status: Outcome) => (start: Date, end: Date) =>
      this.visibility.countClosed(status, start.getTime(), end.getTime(), filter);
    const [upcoming, dueByMinute, dueByHour, ...perOutcome] = await Promise.all([
      this.upcoming?.(filter),
      fill(byMinute, due),
      fill(byHour, due),
      ...OUTCOMES.map((status) => fill(hours, closed(status))),
    ]);
    const outcomes = perOutcome.every((series) => series !== undefined)
      ? hours.map((span, i) => ({
          ...span,
          counts: Object.fromEntries(
            OUTCOMES.map((status, j) => [status, perOutcome[j]![i]!.count]),
          ) as Record<Outcome, number>,
        }))
      : undefined;
    const occurrences = upcoming && {
      byMinute: bucketTimes(byMinute, upcoming.times),
      byHour: bucketTimes(byHour, upcoming.times),
      schedules: upcoming.schedules,
      truncated: upcoming.truncated,
    };
    return { dueByMinute, dueByHour, occurrences, outcomes, queries, computedAt: now };
  }
}
