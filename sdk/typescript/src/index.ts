export { DelayedTasksClient, type ClientOptions, type RetryOptions } from './client.js';
export { DelayedTaskError, type ErrorCode, type ErrorDetail, type KnownErrorCode } from './errors.js';
export type { Payload } from './checks.js';
export type {
  CreateTaskInput,
  CreateTaskResult,
  CreateTasksItem,
  ListTasksQuery,
  ReplayInput,
  RescheduleInput,
  Task,
  TaskError,
  TaskPage,
  TaskStatus,
  TaskSummary,
} from './types.js';
export { SDK_VERSION } from './version.js';
export { parseCallback, type Callback } from './receive/parse.js';
export {
  CallbackRejectedError,
  WebhookVerifier,
  type HeaderSource,
  type RejectionReason,
  type VerifierOptions,
} from './receive/verify.js';
export { InMemoryIdempotencyStore, once, type IdempotencyStore } from './receive/idempotency.js';
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
