import type { Sinks } from '@temporalio/workflow';
import type { TaskStatus } from './task.js';

/** What the workflow tells the worker process outside of history: metrics only, never on replay. */
export interface TaskSinks extends Sinks {
  taskMetrics: {
    finished(taskType: string, status: TaskStatus): void;
    /** A schedule's occurrence started, this long after its nominal time (jitter, catch-up, backfill). */
    occurrenceStarted(taskType: string, lagSeconds: number): void;
  };
}
