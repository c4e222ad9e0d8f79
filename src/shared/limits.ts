/** Field rules of the public contract, shared by the API schemas and the policy file. */

export const TASK_TYPE_PATTERN = '^[a-z0-9][a-z0-9._-]{0,63}$';
export const TASK_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$';

export const MAX_RETRIES = { min: 0, max: 50, default: 3 } as const;
export const TIMEOUT_MS = { min: 100, max: 600_000, default: 30_000 } as const;
export const PRIORITY = { min: 1, max: 5, default: 3 } as const;
export const PAYLOAD_VERSION_DEFAULT = 1;
export const TRACE_ID_MAX_LENGTH = 128;

/** Items of one batch create (POST /api/v1/tasks/batch). */
export const BATCH_TASKS = { min: 1, max: 100 } as const;
