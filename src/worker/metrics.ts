/**
 * The worker process's own metrics; the Temporal SDK's worker metrics are appended on scrape.
 */
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { BrokerObserver } from '../activities/brokers/publish.js';
import type { CallbackObserver } from '../activities/callback.js';
import { LAG_BUCKETS } from '../observability/buckets.js';
import { BoundedLabel } from '../observability/labels.js';
import type { TaskStatus } from '../shared/task.js';

/**
 * Temporal SDK worker metrics the dashboards and alerts use; the worker's /metrics appends them.
 * A failure counter has no series until its first failure.
 */
export const SDK_METRIC_NAMES = [
  'temporal_activity_schedule_to_start_latency_seconds',
  'temporal_workflow_task_schedule_to_start_latency_seconds',
  'temporal_worker_task_slots_available',
  'temporal_sticky_cache_size',
  'temporal_num_pollers',
  'temporal_request_failure_total',
] as const;

const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

export class WorkerMetrics {
  readonly registry = new Registry();
  private readonly taskType = new BoundedLabel();
  private readonly finished = new Counter({
    name: 'delayed_tasks_finished_total',
    help: 'Tasks that reached a final status, by task type and status',
    labelNames: ['task_type', 'status'],
    registers: [this.registry],
  });
  private readonly attempts = new Counter({
    name: 'delayed_tasks_callback_attempts_total',
    help: 'Callback attempts by task type and outcome (success, retryable, permanent, timeout, held: not sent for want of our own configuration)',
    labelNames: ['task_type', 'outcome'],
    registers: [this.registry],
  });
  private readonly duration = new Histogram({
    name: 'delayed_tasks_callback_duration_seconds',
    help: 'Duration of one callback attempt',
    labelNames: ['task_type'],
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });
  private readonly fireLag = new Histogram({
    name: 'delayed_tasks_fire_lag_seconds',
    help: 'Start of the first callback attempt minus the due time',
    labelNames: ['task_type'],
    buckets: [...LAG_BUCKETS],
    registers: [this.registry],
  });

  private readonly occurrences = new Histogram({
    name: 'delayed_tasks_schedule_occurrence_lag_seconds',
    help: "Start of a schedule's occurrence minus its nominal time (jitter; minutes to hours: caught up after an outage, or backfilled); its count is the occurrences started",
    labelNames: ['task_type'],
    buckets: [...LAG_BUCKETS],
    registers: [this.registry],
  });

  private readonly brokerPublishes = new Counter({
    name: 'delayed_tasks_broker_publishes_total',
    help: 'Broker publishes by declared broker, kind and outcome (published: confirmed by the broker; failed: retried with the backoff; held: not sent for want of our own configuration)',
    labelNames: ['broker', 'kind', 'outcome'],
    registers: [this.registry],
  });
  private readonly brokerLatency = new Histogram({
    name: 'delayed_tasks_broker_publish_seconds',
    help: "One broker publish, from the attempt's start to the broker's confirm (or the failure)",
    labelNames: ['broker', 'kind'],
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });

  /** Declared brokers are the operator's, a bounded set: labelled by name. */
  readonly brokerObserver: BrokerObserver = {
    published: (broker, kind, outcome, seconds) => {
      this.brokerPublishes.inc({ broker, kind, outcome });
      this.brokerLatency.observe({ broker, kind }, seconds);
    },
  };

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  readonly observer: CallbackObserver = {
    attempted: (taskType, outcome, seconds) => {
      const type = this.taskType.of(taskType);
      this.attempts.inc({ task_type: type, outcome });
      this.duration.observe({ task_type: type }, seconds);
    },
    fired: (taskType, lagSeconds) => {
      this.fireLag.observe({ task_type: this.taskType.of(taskType) }, Math.max(0, lagSeconds));
    },
  };

  occurrenceStarted(taskType: string, lagSeconds: number): void {
    this.occurrences.observe({ task_type: this.taskType.of(taskType) }, Math.max(0, lagSeconds));
  }

  taskFinished(taskType: string, status: TaskStatus): void {
    this.finished.inc({ task_type: this.taskType.of(taskType), status });
  }
}
