/** Field rules of the public contract, shared by the API schemas and the policy file. */

export const TASK_TYPE_PATTERN = '^[a-z0-9][a-z0-9._-]{0,63}$';
export const TASK_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$';

export const MAX_RETRIES = { min: 0, max: 50, default: 3 } as const;
export const TIMEOUT_MS = { min: 100, max: 600_000, default: 30_000 } as const;
export const PRIORITY = { min: 1, max: 5, default: 3 } as const;
export const PAYLOAD_VERSION_DEFAULT = 1;
/** A pull task's lease length when it names none; LEASE_MIN_SECONDS and LEASE_MAX_SECONDS bound it. */
export const LEASE_SECONDS_DEFAULT = 60;
export const TRACE_ID_MAX_LENGTH = 128;

/** Items of one batch create (POST /api/v1/tasks/batch). */
export const BATCH_TASKS = { min: 1, max: 100 } as const;

/**
 * Schedule ids: a task id's alphabet, short enough that an occurrence's task id (the schedule id, `-`
 * and its nominal time as `2026-12-04T02:00:00Z`, as Temporal names it) stays a valid task id.
 */
export const SCHEDULE_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$';
/** A duration: days, hours, minutes and seconds in that order, e.g. `15m`, `1h30m`, `1d`. */
export const DURATION_PATTERN = '^([0-9]+d)?([0-9]+h)?([0-9]+m)?([0-9]+s)?$';
export const SCHEDULE_NOTE_MAX_LENGTH = 512;
/** How many future run times and past occurrences a schedule's view shows. */
export const SCHEDULE_NEXT_RUNS = 10;
export const SCHEDULE_RECENT_OCCURRENCES = 10;
/** Catch-up window after an outage: bounded by default and at most. */
export const CATCHUP_WINDOW = { default: '1h', min: 10, max: 7 * 24 * 3600 } as const;
