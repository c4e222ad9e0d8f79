/**
 * The one place that turns Temporal client errors into the service's error catalog.
 */
import { ServiceError, WorkflowUpdateFailedError, isGrpcServiceError } from '@temporalio/client';
import { ApplicationFailure, WorkflowNotFoundError } from '@temporalio/common';
import { FAILED_PRECONDITION_TYPE } from '../shared/task.js';
import { ApiError, ErrorCode, taskNotFound } from '../errors/catalog.js';
import { CONNECT_FAILURE } from './sdk-knowledge.js';

const GRPC = {
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  UNAVAILABLE: 14,
} as const;

/** The gRPC status code behind an error, looking through the SDK's wrappers. */
export function grpcCode(err: unknown): number | undefined {
  for (let current = err, depth = 0; current && depth < 5; depth++) {
    if (isGrpcServiceError(current)) return current.code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Workflow gone or already closed, as the server says it to signals and updates. */
export function isNotRunning(err: unknown): boolean {
  return err instanceof WorkflowNotFoundError || grpcCode(err) === GRPC.NOT_FOUND;
}

/** The server refused the call as the target's state does not allow it (FAILED_PRECONDITION). */
export function isFailedPrecondition(err: unknown): boolean {
  return grpcCode(err) === GRPC.FAILED_PRECONDITION;
}

export function isAlreadyExists(err: unknown): boolean {
  return grpcCode(err) === GRPC.ALREADY_EXISTS;
}

/** 503 UNAVAILABLE: Temporal did not answer (in time); the cause stays in the logs only. */
export function temporalUnavailable(cause: unknown): ApiError {
  return new ApiError(ErrorCode.Unavailable, 'Temporal is unreachable; retry later', undefined, { cause });
}

export function toApiError(err: unknown, taskId?: string): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof WorkflowNotFoundError) return taskNotFound(taskId ?? err.workflowId);
  if (err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure) {
    if (err.cause.type === FAILED_PRECONDITION_TYPE) {
      return new ApiError(ErrorCode.FailedPrecondition, err.cause.message, undefined, { cause: err });
    }
    return new ApiError(ErrorCode.InvalidArgument, err.cause.message, undefined, { cause: err });
  }
  const code = grpcCode(err);
  if (code === GRPC.UNAVAILABLE || code === GRPC.DEADLINE_EXCEEDED || isConnectFailure(err)) {
    return temporalUnavailable(err);
  }
  if (code === GRPC.RESOURCE_EXHAUSTED) {
    return new ApiError(
      ErrorCode.ResourceExhausted,
      'Temporal refused the request for load or quota; retry later',
      undefined,
      { cause: err },
    );
  }
  if (code === GRPC.NOT_FOUND && taskId) return taskNotFound(taskId);
  return new ApiError(ErrorCode.Internal, 'internal error', undefined, { cause: err });
}

function isConnectFailure(err: unknown): boolean {
  if (err instanceof ServiceError) return grpcCode(err) === undefined;
  return err instanceof Error && CONNECT_FAILURE.test(err.message);
}
