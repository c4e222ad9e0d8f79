/** The one error type of the SDK: the API's `{error: {code, message, details}}`, or a local refusal. */

/** Codes the service sends today (a runtime list the OpenAPI test compares), and the SDK's UNKNOWN. */
export const KNOWN_ERROR_CODES = [
  'INVALID_ARGUMENT',
  'UNAUTHENTICATED',
  'PERMISSION_DENIED',
  'PAYLOAD_TOO_LARGE',
  'TASK_NOT_FOUND',
  'TASK_CONFLICT',
  'SCHEDULE_NOT_FOUND',
  'SCHEDULE_CONFLICT',
  'SCHEDULE_LIMIT_EXCEEDED',
  'FAILED_PRECONDITION',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'UNSUPPORTED_MEDIA_TYPE',
  'RESOURCE_EXHAUSTED',
  'UNAVAILABLE',
  'INTERNAL',
  /** Sent before any route: the request's headers were too slow or too large (nothing was done). */
  'REQUEST_TIMEOUT',
  'HEADERS_TOO_LARGE',
  'LEASE_NOT_FOUND',
  'LEASE_EXPIRED',
  'TASK_CANCELLED',
  /** The SDK's own: the answer was not the API's error body (a proxy's HTML page, say). */
  'UNKNOWN',
] as const;

/** A newer server may send other codes: they pass through unchanged (see `ErrorCode`). */
export type KnownErrorCode = (typeof KNOWN_ERROR_CODES)[number];

/** A known code, or any other string a newer server sends (`string & {}` keeps autocompletion). */
export type ErrorCode = KnownErrorCode | (string & {});

export interface ErrorDetail {
  /** Dotted path of the offending field (`payload.items.2`), or `body`. */
  field: string;
  reason: string;
}

/** The API's error answer on the wire: `{"error": {"code", "message", "details"?}}`. */
export interface ErrorBody {
  error: {
    code: ErrorCode;
    message: string;
    details?: ErrorDetail[];
  };
}

export class DelayedTaskError extends Error {
  override readonly name = 'DelayedTaskError';

  constructor(
    readonly code: ErrorCode,
    message: string,
    /** HTTP status; 0 when no response was received (refused before sending, network failure). */
    readonly status: number,
    readonly details: readonly ErrorDetail[] = [],
    /** The response's `x-request-id`, when it had one. */
    readonly requestId?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A refusal before sending: INVALID_ARGUMENT, status 0, one detail. */
export function invalidArgument(field: string, reason: string): DelayedTaskError {
  return new DelayedTaskError('INVALID_ARGUMENT', `${field} ${reason}`, 0, [{ field, reason }]);
}
