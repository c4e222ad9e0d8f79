export { DelayedTasksClient, type ClientOptions, type RetryOptions } from './client.js';
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
  Attempt,
  AttemptOutcome,
  CreateTaskInput,
  CreateTaskResult,
  CreateTasksItem,
  ListTasksQuery,
  ReplayInput,
  RescheduleInput,
  Task,
  TaskActionAnswer,
  TaskError,
  TaskPage,
  TaskStatus,
  TaskSummary,
} from './types.js';
export { OVERLAP_POLICIES } from './schedules.js';
export type {
  BackfillScheduleInput,
  CreateScheduleInput,
  CreateScheduleResult,
  ListSchedulesQuery,
  OverlapPolicy,
  Schedule,
  ScheduleOccurrence,
  SchedulePage,
  ScheduleSpecInput,
  ScheduleSummary,
  ScheduleTask,
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
  NO_HANDLER,
  PermanentError,
  RetryableError,
  type CallbackHandler,
  type ReceiverAnswer,
  type ReceiverOptions,
  type ReceiverResponse,
} from './receive/handler.js';
