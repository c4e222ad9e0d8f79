/**
 * What a schedule test's API needs beyond the defaults: a longer Temporal deadline. A schedule's
 * describe is a query the server answers from the schedule's own workflow, which on two cores shared
 * by the whole suite has taken over the default 5 s (a 503 in an access test, not a refusal).
 */
export const SCHEDULE_TEST_ENV = { TEMPORAL_RPC_TIMEOUT_MS: '20000' } as const;
