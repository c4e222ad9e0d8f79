/**
 * Names shared by the worker, the client and the API. Workflow-safe: no Node built-ins.
 */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** Policy name of task types the policy file does not declare (no task type can start with `_`). */
export const DEFAULT_POLICY_NAME = '_default';

/** Patch ids of the task workflow's shape changes (`patched()`): never rename or reuse one. */
export const WORKFLOW_PATCHES = {
  /** Callback as a local activity when the input asks for it; no RUNNING write before a retry. */
  shapeV2: 'shape-v2-local-callback',
  /** A pull task's releases of one attempt past the free ones wait, and too many spend the attempt. */
  releaseBound: 'pull-release-bound',
} as const;

/** Workflow type name of a task, as Temporal and the CLI show it. */
export const TASK_WORKFLOW_TYPE = 'delayedTask';

/** Custom search attributes the workflow keeps current; operators list by them. */
export const SEARCH_ATTRIBUTES = {
  taskType: defineSearchAttributeKey('TaskType', SearchAttributeType.KEYWORD),
  taskStatus: defineSearchAttributeKey('TaskStatus', SearchAttributeType.KEYWORD),
  executeAt: defineSearchAttributeKey('ExecuteAt', SearchAttributeType.DATETIME),
  /** Set at start; tasks started before owners existed have none and belong to `default`. */
  owner: defineSearchAttributeKey('Owner', SearchAttributeType.KEYWORD),
} as const;

/**
 * Search attributes Temporal sets on the workflows a Schedule starts (system attributes: nothing to
 * register). The nominal time is the occurrence's; the id is the schedule's Temporal id.
 */
export const SCHEDULE_SEARCH_ATTRIBUTES = {
  scheduledById: defineSearchAttributeKey('TemporalScheduledById', SearchAttributeType.KEYWORD),
  scheduledStartTime: defineSearchAttributeKey('TemporalScheduledStartTime', SearchAttributeType.DATETIME),
} as const;

/** Every custom search attribute, for registering them on a server. */
export const ALL_SEARCH_ATTRIBUTES = Object.values(SEARCH_ATTRIBUTES);

/** Retry schedule of callbacks: 1 s doubling, capped at 10 minutes. */
export const CALLBACK_BACKOFF = {
  initialMs: 1_000,
  multiplier: 2,
  maxMs: 10 * 60_000,
} as const;

/** Extra time Temporal allows a callback attempt beyond its HTTP timeout before declaring the worker lost. */
export const ATTEMPT_TIMEOUT_MARGIN_MS = 5_000;

/**
 * Longest one lease may be held, extensions included (the pull attempt's start-to-close timeout): a
 * worker extending past it loses the lease and the task is retried.
 */
export const LEASE_MAX_HOLD_MS = 24 * 3600 * 1000;

/** Attempts a task's attempt history keeps (the newest); older ones are dropped, `attempts` still counts them. */
export const ATTEMPT_HISTORY_LIMIT = 50;

/**
 * How long a held callback (our own configuration lacks its secret) waits before it is tried again:
 * 5 s, doubling to at most a minute, so a fixed configuration is picked up within a minute. Held
 * tries are not attempts: they spend none of the task's retries.
 */
export function heldRetryDelayMs(holds: number): number {
  return Math.min(60_000, 5_000 * 2 ** Math.max(0, holds - 1));
}

/**
 * Releases of one attempt of a pull task (docs/workers.md, "Releases are bounded"): the first
 * `free` offer the task again at once; each later one waits 1 s, doubling to at most a minute
 * (a loop of releases adds a few history events a minute, not hundreds a second); the `limit`-th
 * counts as the attempt failing (retried with the task's backoff, within its retries). With these
 * numbers an attempt is released at most 15 times, over about six minutes of waits: longer than an
 * SDK store's default claim (5 minutes) that makes a second worker release the task.
 */
export const RELEASE_BOUND = { free: 3, limit: 15, firstDelayMs: 1_000, maxDelayMs: 60_000 } as const;

/**
 * What the `release`-th release of one attempt does: offer the task again after this many
 * milliseconds (0: at once), or, at the limit, spend the attempt.
 */
export function releaseOutcome(release: number): number | 'spend-attempt' {
  if (release >= RELEASE_BOUND.limit) return 'spend-attempt';
  if (release <= RELEASE_BOUND.free) return 0;
  const delayMs = RELEASE_BOUND.firstDelayMs * 2 ** (release - RELEASE_BOUND.free - 1);
  return Math.min(RELEASE_BOUND.maxDelayMs, delayMs);
}
