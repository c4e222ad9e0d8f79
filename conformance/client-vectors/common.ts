/** Builders and shared values of the client vectors (`conformance/client/*.json`). */

export const UUID = { $match: 'uuid' };
/**
 * The most a call may take after a `Retry-After: 1` (runners zero the backoff): an SDK that sleeps
 * its own cap (30 s) instead, or the header in the wrong unit, fails; a loaded CI machine passes.
 */
export const RETRY_AFTER_CEILING_MS = 6000;
export const JSON_HEADERS = { 'content-type': 'application/json' };

export function task(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    taskId: 't-1',
    owner: 'default',
    taskType: 'order.close',
    status: 'SCHEDULED',
    executeAt: '2026-12-03T10:30:00.000Z',
    createdAt: '2026-12-03T10:00:00.000Z',
    payload: { a: 1 },
    payloadVersion: 1,
    callbackUrl: 'http://127.0.0.1:9/cb',
    maxRetries: 3,
    timeoutMs: 30000,
    traceId: null,
    priority: 3,
    attempts: 0,
    lastError: null,
    nextAttemptAt: null,
    firedAt: null,
    completedAt: null,
    ...overrides,
  };
}

export function summary(taskId: string): Record<string, unknown> {
  return {
    taskId,
    owner: 'default',
    taskType: 'order.close',
    status: 'FAILED',
    executeAt: '2026-12-03T10:30:00.000Z',
    createdAt: '2026-12-03T10:00:00.000Z',
    callbackUrl: 'http://127.0.0.1:9/cb',
    priority: 3,
    attempts: 4,
    lastError: { message: 'callback answered 500', statusCode: 500 },
    completedAt: '2026-12-03T10:31:00.000Z',
  };
}

export function ok(body: unknown, status = 200, headers: Record<string, string> = {}) {
  return { status, headers: { ...JSON_HEADERS, ...headers }, body };
}

export function apiError(status: number, code: string, message: string, details?: unknown[], headers = {}) {
  return ok({ error: { code, message, ...(details ? { details } : {}) } }, status, headers);
}

export const CREATE_PATH = '/api/v1/tasks';
export const createRequest = (body: Record<string, unknown>, headers: Record<string, unknown> = {}) => ({
  method: 'POST',
  path: CREATE_PATH,
  query: {},
  headers: { 'content-type': 'application/json', ...headers },
  body,
});
export const baseInput = { taskType: 'order.close', payload: { a: 1 }, callbackUrl: 'http://127.0.0.1:9/cb' };

/** A create refused before sending: no request, INVALID_ARGUMENT, status 0, one detail. */
/**
 * The reasons every SDK gives for the checks it makes before sending, word for word (the
 * runners compare them): a team reading logs from four languages sees one text per fault.
 */
export const REASONS = {
  notFinite: 'is not a finite number',
  unsafeInteger: 'is an integer beyond ±(2^53-1); send large ids and amounts as strings',
  noOffset: 'must be an RFC 3339 time with an offset (Z or +08:00)',
  exactlyOne: 'give exactly one of delaySeconds or executeAt',
  atMostOne: 'give at most one of delaySeconds or executeAt',
  negative: 'must not be negative',
  notObject: 'must be a JSON object',
} as const;

export function refused(operation: string, name: string, input: unknown, field: string, reason: string) {
  return {
    name,
    operation,
    input,
    requests: [],
    responses: [],
    expect: { error: { code: 'INVALID_ARGUMENT', status: 0, details: [{ field, reason }] } },
  };
}

export function refusedCreate(name: string, input: Record<string, unknown>, field: string, reason: string) {
  return refused('create', name, input, field, reason);
}

export const noBody = (method: string, path: string, query: Record<string, string> = {}) => ({
  method,
  path,
  query,
  headers: { 'user-agent': { $match: 'userAgent' } },
  body: null,
});
export const jsonBody = (path: string, body: unknown) => ({
  method: 'POST',
  path,
  query: {},
  headers: { 'content-type': 'application/json' },
  body,
});

export const unavailable = () => apiError(503, 'UNAVAILABLE', 'Temporal is unreachable');
