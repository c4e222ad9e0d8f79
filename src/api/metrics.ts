/**
 * The API process's metrics. Task counts by status come from Temporal visibility counts, cached,
 * so a scrape costs a few count queries whatever the number of tasks; the schedule gauges describe
 * every schedule (up to SCHEDULE_TALLY_MAX), at most once per SCHEDULE_METRICS_INTERVAL_SECONDS.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { LAG_BUCKETS } from '../observability/buckets.js';
import { BoundedLabel } from '../observability/labels.js';
import type { TaskStatus } from '../shared/task.js';
import type { ScheduleTally } from '../schedules/lister.js';
import type { TaskVisibility } from '../tasks/visibility.js';

export interface TaskCounts {
  byStatus: Partial<Record<TaskStatus, number>>;
  /** SCHEDULED tasks whose due time has passed: due, not yet fired. */
  overdue?: number;
  /** Seconds since the due time of the oldest SCHEDULED task that is past due; 0 when none. */
  oldestOverdueSeconds: number;
}

export interface ApiMetricsOptions {
  /** Reads the counts from Temporal; called at most once per `cacheMs`. */
  readCounts: () => Promise<TaskCounts>;
  /** @defaultValue 15000 */
  cacheMs?: number;
  /** Reads every schedule's run counts (one describe per schedule); called at most once per `scheduleCacheMs`. */
  readScheduleTally?: () => Promise<ScheduleTally>;
  /** @defaultValue 60000 */
  scheduleCacheMs?: number;
}

/**
 * What became of pull delivery's leases, as the lease routes answered: a task leased; a lease acked,
 * nacked (retryable or permanent), released or extended; or a settle call refused because the lease
 * had expired (`expired`), its task was cancelled (`cancelled`), or the token names no pending lease
 * of the caller (`refused`: settled already, another owner's, malformed).
 */
export const LEASE_OUTCOMES = [
  'leased',
  'acked',
  'nacked_retryable',
  'nacked_permanent',
  'released',
  'extended',
  'expired',
  'cancelled',
  'refused',
] as const;
export type LeaseOutcomeLabel = (typeof LEASE_OUTCOMES)[number];

/** What the lease lag needs of a leased task (the lease answer's `task`). */
export interface LeasedTaskTimes {
  taskType: string;
  /** The due time, RFC 3339. */
  executeAt: string;
  attempt: number;
}

/** At most this many schedules are described for the schedule gauges; past it they say so. */
export const SCHEDULE_TALLY_MAX = 500;

export const GAUGED_STATUSES: readonly TaskStatus[] = ['SCHEDULED', 'RUNNING', 'FAILED'];

/** What the gauges show while Temporal cannot be asked: no value, rather than a reassuring zero. */
const UNKNOWN_COUNTS: TaskCounts = { byStatus: {}, overdue: Number.NaN, oldestOverdueSeconds: Number.NaN };

/**
 * How the API reads its task gauges from Temporal visibility: counts by status, the overdue count and
 * the age of the oldest overdue task (count queries only, see `oldestAgeSeconds`).
 */
export function taskCountsReader(
  tasks: Pick<TaskVisibility, 'countByStatus' | 'countOverdue'>,
  maxAgeMs: number,
  now: () => number = Date.now,
): () => Promise<TaskCounts> {
  return async () => {
    const at = now();
    const overdue = await tasks.countOverdue(at);
    const oldestOverdueSeconds =
      overdue === 0 ? 0 : await oldestAgeSeconds((ageMs) => tasks.countOverdue(at - ageMs), maxAgeMs);
    return { byStatus: await tasks.countByStatus(GAUGED_STATUSES), overdue, oldestOverdueSeconds };
  };
}

export class ApiMetrics {
  readonly registry = new Registry();
  private readonly taskType = new BoundedLabel();
  private readonly created = new Counter({
    name: 'delayed_tasks_created_total',
    help: 'Tasks created through the API, by task type',
    labelNames: ['task_type'],
    registers: [this.registry],
  });
  private readonly schemaRejections = new Counter({
    name: 'delayed_tasks_payload_schema_rejections_total',
    help: "Payloads refused by their task type's JSON Schema, by task type and payload version (`undeclared`: a version the type does not declare)",
    labelNames: ['task_type', 'payload_version'],
    registers: [this.registry],
  });
  readonly httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'API request duration by method, route and status code',
    labelNames: ['method', 'route', 'status_code'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });
  private readonly countFailures = new Counter({
    name: 'delayed_tasks_count_query_failures_total',
    help: 'Reads of the task counts or the schedule tally from Temporal that failed; the task gauges have no value (NaN) and the schedule gauges no series meanwhile',
    registers: [this.registry],
  });
  private readonly leaseOutcomes = new Counter({
    name: 'delayed_tasks_lease_outcomes_total',
    help: `Pull delivery through the lease routes, by outcome (${LEASE_OUTCOMES.join(', ')}): leased counts tasks handed to consumers; expired, cancelled and refused count settle calls answered 409 or 404`,
    labelNames: ['outcome'],
    registers: [this.registry],
  });
  private readonly leaseLag = new Histogram({
    name: 'delayed_tasks_lease_lag_seconds',
    help: "A pull task's first attempt leased, minus its due time (a released task leased again is counted again): how far behind the consumers are",
    labelNames: ['task_type'],
    buckets: [...LAG_BUCKETS],
    registers: [this.registry],
  });
  private cached: { at: number; value: Promise<TaskCounts> } | undefined;
  private cachedTally: { at: number; value: Promise<ScheduleTally | undefined> } | undefined;

  constructor(private readonly options: ApiMetricsOptions) {
    collectDefaultMetrics({ register: this.registry });
    // Every outcome from the start, so that the first of each is an increase, not a new series.
    for (const outcome of LEASE_OUTCOMES) this.leaseOutcomes.inc({ outcome }, 0);
    const counts = () => this.counts();
    new Gauge({
      name: 'delayed_tasks_current',
      help: 'Tasks now SCHEDULED, RUNNING or FAILED (dead letters), from Temporal visibility (cached)',
      labelNames: ['status'],
      registers: [this.registry],
      async collect() {
        const { byStatus } = await counts();
        for (const status of GAUGED_STATUSES) this.set({ status }, byStatus[status] ?? Number.NaN);
      },
    });
    new Gauge({
      name: 'delayed_tasks_overdue',
      help: 'Tasks past their due time that have not fired yet (cached): the delivery backlog with RUNNING',
      registers: [this.registry],
      async collect() {
        this.set((await counts()).overdue ?? Number.NaN);
      },
    });
    new Gauge({
      name: 'delayed_tasks_oldest_overdue_seconds',
      help: 'Age of the oldest task past its due time that has not fired yet (cached); 0 when none',
      registers: [this.registry],
      async collect() {
        this.set((await counts()).oldestOverdueSeconds);
      },
    });
    if (options.readScheduleTally) this.scheduleGauges();
  }

  /**
   * Temporal's run counts of every schedule, summed by task type: gauges, not counters (a deleted
   * schedule takes its counts with it; every API replica reports the same sums, read them with max()).
   * A failed read leaves the gauges without series (truncated: NaN) and raises the count-failure
   * counter.
   */
  private scheduleGauges(): void {
    const tally = () => this.tally();
    /** The tally's sums by (bounded) task type; none when the read failed. */
    const byType = async () =>
      [...((await tally())?.byTaskType ?? [])].map(([type, sum]) => ({
        ...sum,
        type: this.taskType.of(type),
      }));
    new Gauge({
      name: 'delayed_tasks_schedules',
      help: `Schedules by task type and paused state, described at most once per SCHEDULE_METRICS_INTERVAL_SECONDS (at most ${SCHEDULE_TALLY_MAX}: see delayed_tasks_schedules_truncated)`,
      labelNames: ['task_type', 'paused'],
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const sum of await byType()) {
          this.inc({ task_type: sum.type, paused: 'true' }, sum.paused);
          this.inc({ task_type: sum.type, paused: 'false' }, sum.schedules - sum.paused);
        }
      },
    });
    new Gauge({
      name: 'delayed_tasks_schedule_runs_skipped',
      help: 'Runs Temporal did not start, summed over the existing schedules of each task type: reason overlap (the previous occurrence was still running) or catchup_window (missed by more than the catch-up window after an outage); a rise means runs were lost to policy',
      labelNames: ['task_type', 'reason'],
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const sum of await byType()) {
          this.inc({ task_type: sum.type, reason: 'overlap' }, sum.skippedByOverlap);
          this.inc({ task_type: sum.type, reason: 'catchup_window' }, sum.missedCatchupWindow);
        }
      },
    });
    new Gauge({
      name: 'delayed_tasks_schedules_truncated',
      help: `1 when more than ${SCHEDULE_TALLY_MAX} schedules exist and the schedule gauges count only the first ${SCHEDULE_TALLY_MAX}`,
      registers: [this.registry],
      async collect() {
        const read = await tally();
        this.set(read ? Number(read.truncated) : Number.NaN);
      },
    });
  }

  taskCreated(taskType: string): void {
    this.created.inc({ task_type: this.taskType.of(taskType) });
  }

  /** Every leased task counts; the first attempt's also measures its lag from its due time. */
  taskLeased(task: LeasedTaskTimes, now: number = Date.now()): void {
    this.leaseOutcomes.inc({ outcome: 'leased' });
    if (task.attempt !== 1) return;
    const lagSeconds = (now - Date.parse(task.executeAt)) / 1000;
    this.leaseLag.observe({ task_type: this.taskType.of(task.taskType) }, Math.max(0, lagSeconds));
  }

  /** An ack, nack, extend or release answered (or refused). */
  leaseSettled(outcome: Exclude<LeaseOutcomeLabel, 'leased'>): void {
    this.leaseOutcomes.inc({ outcome });
  }

  /** Only declared types have schemas, and undeclared versions share one label: bounded series. */
  payloadSchemaRejected(taskType: string, payloadVersion: number, versionDeclared: boolean): void {
    this.schemaRejections.inc({
      task_type: this.taskType.of(taskType),
      payload_version: versionDeclared ? String(payloadVersion) : 'undeclared',
    });
  }

  private counts(): Promise<TaskCounts> {
    const now = Date.now();
    if (!this.cached || now - this.cached.at > (this.options.cacheMs ?? 15_000)) {
      // A failed read is not "no tasks": the gauges say NaN and the failure counter rises.
      const value = this.options.readCounts().catch(() => {
        this.countFailures.inc();
        return UNKNOWN_COUNTS;
      });
      this.cached = { at: now, value };
    }
    return this.cached.value;
  }

  private tally(): Promise<ScheduleTally | undefined> {
    const read = this.options.readScheduleTally;
    if (!read) return Promise.resolve(undefined);
    const now = Date.now();
    if (!this.cachedTally || now - this.cachedTally.at > (this.options.scheduleCacheMs ?? 60_000)) {
      const value = read().catch(() => {
        this.countFailures.inc();
        return undefined;
      });
      this.cachedTally = { at: now, value };
    }
    return this.cachedTally.value;
  }
}

/**
 * Age in seconds of the oldest overdue item, found with count queries only: doubling steps back in
 * time until nothing is older, then bisecting to within 5%. `countOlderThan(ms)` counts items due
 * before now minus ms.
 */
export async function oldestAgeSeconds(
  countOlderThan: (ageMs: number) => Promise<number>,
  maxAgeMs: number,
): Promise<number> {
  if ((await countOlderThan(0)) === 0) return 0;
  let found = 0;
  let step = 1000;
  while (step <= maxAgeMs && (await countOlderThan(step)) > 0) {
    found = step;
    step *= 2;
  }
  let low = found;
  let high = Math.min(step, maxAgeMs);
  while (high - low > Math.max(1000, low * 0.05)) {
    const middle = Math.floor((low + high) / 2);
    if ((await countOlderThan(middle)) > 0) low = middle;
    else high = middle;
  }
  return low / 1000;
}
