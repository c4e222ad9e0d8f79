/**
 * The API's one catalog of errors: a stable machine code, its HTTP status and a message.
 * Every error body is `{"error": {"code", "message", "details"?}}`.
 */
import type { FieldProblem } from '../validation/json-schema.js';

export const ErrorCode = {
  InvalidArgument: 'INVALID_ARGUMENT',
  Unauthenticated: 'UNAUTHENTICATED',
  PermissionDenied: 'PERMISSION_DENIED',
  PayloadTooLarge: 'PAYLOAD_TOO_LARGE',
  TaskNotFound: 'TASK_NOT_FOUND',
  TaskConflict: 'TASK_CONFLICT',
  ScheduleNotFound: 'SCHEDULE_NOT_FOUND',
  ScheduleConflict: 'SCHEDULE_CONFLICT',
  ScheduleLimitExceeded: 'SCHEDULE_LIMIT_EXCEEDED',
  FailedPrecondition: 'FAILED_PRECONDITION',
  LeaseNotFound: 'LEASE_NOT_FOUND',
  LeaseExpired: 'LEASE_EXPIRED',
  TaskCancelled: 'TASK_CANCELLED',
  NotFound: 'NOT_FOUND',
  MethodNotAllowed: 'METHOD_NOT_ALLOWED',
  UnsupportedMediaType: 'UNSUPPORTED_MEDIA_TYPE',
  ResourceExhausted: 'RESOURCE_EXHAUSTED',
  Unavailable: 'UNAVAILABLE',
  Internal: 'INTERNAL',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

export const ERROR_STATUS: Record<ErrorCode, number> = {
  INVALID_ARGUMENT: 400,
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  PAYLOAD_TOO_LARGE: 413,
  TASK_NOT_FOUND: 404,
  TASK_CONFLICT: 409,
  SCHEDULE_NOT_FOUND: 404,
  SCHEDULE_CONFLICT: 409,
  SCHEDULE_LIMIT_EXCEEDED: 409,
  FAILED_PRECONDITION: 409,
  LEASE_NOT_FOUND: 404,
  LEASE_EXPIRED: 409,
  TASK_CANCELLED: 409,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RESOURCE_EXHAUSTED: 429,
  UNAVAILABLE: 503,
  INTERNAL: 500,
};

/** What each code means, for the API documentation. */
export const ERROR_DESCRIPTIONS: Record<ErrorCode, string> = {
  INVALID_ARGUMENT:
    'The request is malformed or a field breaks a rule; `details` names each field. Nothing was created.',
  UNAUTHENTICATED:
    'No valid API key: send `Authorization: Bearer <key>`. The same answer for a missing, malformed, unknown, expired or disabled key.',
  PERMISSION_DENIED:
    "The API key lacks the route's scope, or may not use this task type or callback host (`details` names the field). Nothing was created.",
  PAYLOAD_TOO_LARGE:
    'The payload (or the whole body) is over the configured size limit. Nothing was created.',
  TASK_NOT_FOUND:
    "No task has this id for the caller's owner (another owner's task answers exactly as an absent one).",
  TASK_CONFLICT: 'A task with this id exists with a different specification.',
  SCHEDULE_NOT_FOUND:
    "No schedule has this id for the caller's owner (another owner's schedule answers exactly as an absent one).",
  SCHEDULE_CONFLICT: 'A schedule with this id exists with a different specification.',
  SCHEDULE_LIMIT_EXCEEDED:
    'The owner already has the configured maximum number of schedules (SCHEDULES_MAX_PER_OWNER); delete one first. Nothing was created.',
  FAILED_PRECONDITION: 'The task is not in a status that allows this action.',
  LEASE_NOT_FOUND:
    "No lease of the caller's owner has this token (another owner's token answers exactly as an absent one), or the lease was already settled.",
  LEASE_EXPIRED:
    'The lease ran out (neither acked nor extended within its leaseSeconds): the attempt counted as failed and the task is retried or was handed to another worker.',
  TASK_CANCELLED: 'The task was cancelled while leased: it stays CANCELLED; drop the work.',
  NOT_FOUND: 'No such route or resource.',
  METHOD_NOT_ALLOWED: 'The route exists but not with this method.',
  UNSUPPORTED_MEDIA_TYPE: 'The body is not application/json.',
  RESOURCE_EXHAUSTED:
    "Over the API key's request rate or the failed-authentication limit of the client address (`Retry-After` says when to retry), or Temporal refused for load or quota (for example another batch job is running); retry later.",
  UNAVAILABLE: 'Temporal cannot be reached; retry later. The request may not have been carried out.',
  INTERNAL: 'An unexpected error; the server log has the details.',
};

export class ApiError extends Error {
  override name = 'ApiError';
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: FieldProblem[],
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.status = ERROR_STATUS[code];
  }

  toBody(): ErrorBody {
    const error: ErrorBody['error'] = { code: this.code, message: this.message };
    if (this.details && this.details.length > 0) error.details = this.details;
    return { error };
  }
}

export interface ErrorBody {
  error: { code: ErrorCode; message: string; details?: FieldProblem[] };
}

/**
 * A payload its type's schema refuses (INVALID_ARGUMENT, one detail per violation). Carries the
 * type and version so that the API counts rejections whichever route made them.
 */
export class PayloadSchemaError extends ApiError {
  override name = 'PayloadSchemaError';

  constructor(
    readonly taskType: string,
    readonly payloadVersion: number,
    /** False when the version itself is not declared. */
    readonly versionDeclared: boolean,
    message: string,
    details: FieldProblem[],
  ) {
    super(ErrorCode.InvalidArgument, message, details);
  }
}

export function invalidArgument(field: string, reason: string): ApiError {
  return new ApiError(ErrorCode.InvalidArgument, `${field} ${reason}`, [{ field, reason }]);
}

/** A body that breaks its JSON Schema: the first problem as the message, every one as a detail. */
export function schemaViolation(details: FieldProblem[]): ApiError {
  const first = details[0];
  return new ApiError(
    ErrorCode.InvalidArgument,
    first ? `${first.field} ${first.reason}` : 'invalid request',
    details,
  );
}

export function taskNotFound(taskId: string): ApiError {
  return new ApiError(ErrorCode.TaskNotFound, `no task with id ${taskId}`);
}

export function scheduleNotFound(scheduleId: string): ApiError {
  return new ApiError(ErrorCode.ScheduleNotFound, `no schedule with id ${scheduleId}`);
}
