export {
  DelayedTasksClient,
  type ClientOptions,
  type RetryPolicy,
  type RetryOptions, // deprecated since 0.4.0, removed in 0.5.0
} from './client.js';
export {
  DelayedTaskError,
  KNOWN_ERROR_CODES,
  type ErrorBody,
  type ErrorCode,
  type ErrorDetail,
  type KnownErrorCode,
} from './errors.js';
export type { Payload } from './checks.js';
export { ATTEMPT_OUTCOMES, TASK_STATUSES } from './types.js';
export type {
  AttemptOutcome,
  CreateTaskRequest,
  CreateTaskResult,
  CreateTasksItem,
  Delivery,
  ListTasksRequest,
  ReplayRequest,
  RescheduleRequest,
  Task,
  TaskAttempt,
  TaskError,
  TaskPage,
  TaskStatus,
  TaskSummary,
} from './types.js';
// Deprecated since 0.4.0, removed in 0.5.0 (conformance/vocabulary.json `deprecated`).
export type {
  Attempt,
  CreateTaskInput,
  ListTasksQuery,
  ReplayInput,
  RescheduleInput,
  TaskActionAnswer,
} from './types.js';
export { OVERLAP_POLICIES } from './schedules.js';
export type {
  BackfillScheduleRequest,
  CreateScheduleRequest,
  CreateScheduleResult,
  ListSchedulesRequest,
  OverlapPolicy,
  Schedule,
  ScheduleOccurrence,
  SchedulePage,
  ScheduleSummary,
  ScheduleTask,
  ScheduleTaskRequest,
  UpdateScheduleRequest,
} from './schedules.js';
// Deprecated since 0.4.0, removed in 0.5.0 (conformance/vocabulary.json `deprecated`).
export type {
  BackfillScheduleInput,
  CreateScheduleInput,
  ListSchedulesQuery,
  ScheduleSpecInput,
  ScheduleTaskInput,
  UpdateScheduleInput,
} from './schedules.js';
export { SDK_VERSION } from './version.js';
export { parseCallback, type Callback, type CallbackSchedule } from './receive/parse.js';
export {
  CallbackRejectedError,
  WebhookVerifier,
  type HeaderSource,
  type RejectionReason,
  type VerifierOptions,
} from './receive/verify.js';
export {
  ClaimResult,
  DEFAULT_CLAIM_TTL_MS,
  DEFAULT_DONE_TTL_MS,
  InMemoryIdempotencyStore,
  once,
  type Claim,
  type IdempotencyStore,
  type InMemoryIdempotencyStoreOptions,
  type OnceOutcome,
} from './receive/idempotency.js';
export { createNodeHandler } from './receive/node.js';
export {
  createReceiver,
  type CallbackReceiver,
  NO_HANDLER,
  PermanentError,
  RetryableError,
  type CallbackHandler,
  type ReceiverAnswer,
  type ReceiverOptions,
  type ReceiverResponse,
} from './receive/handler.js';
export { PullWorker, type LeaseHandler, type PullWorkerOptions } from './pull/worker.js';
export type {
  ExtendResult,
  Lease,
  LeasedTask,
  LeaseRequest,
  LeaseResult,
  NackRequest,
} from './pull/types.js';
