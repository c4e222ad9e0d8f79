/**
 * Histogram buckets shared by the processes, so that one lag reads the same way wherever it is
 * measured (the worker's fire lag, the API's lease lag).
 */

/** Seconds late: from 50 ms (on time) to 15 minutes (far behind). */
export const LAG_BUCKETS: readonly number[] = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 900];
