/**
 * The receiving endpoint, framework-free: verify, parse, route by task type, deduplicate, and map
 * the outcome to the status the service understands (2xx done, 503/500 retried, 4xx permanent).
 * node.ts adapts it to node:http, express.ts to Express, fastify.ts to Fastify.
 */
import { InMemoryIdempotencyStore, once, type IdempotencyStore } from './idempotency.js';
import { parseCallback, type Callback } from './parse.js';
import {
  CallbackRejectedError,
  WebhookVerifier,
  type HeaderSource,
  type RejectionReason,
  type VerifierOptions,
} from './verify.js';

/** Throw to have the service retry the callback later (503, with `Retry-After` when given). */
export class RetryableError extends Error {
  override readonly name = 'RetryableError';

  constructor(
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

/** Throw when retrying cannot help: the task fails at once (422). */
export class PermanentError extends Error {
  override readonly name = 'PermanentError';
}

export type CallbackHandler = (callback: Callback) => Promise<void> | void;

export interface ReceiverOptions extends Partial<VerifierOptions> {
  /**
   * One handler per task type (others answer 422), as in every SDK. One function for every type
   * still works in 0.4 but is deprecated (a `DeprecationWarning` once per process) and goes in 0.5.
   */
  handlers: Record<string, CallbackHandler> | CallbackHandler;
  /**
   * Lets the receiver be built without `secrets`, and then accept unsigned callbacks (only for a
   * service that does not sign yet). With secrets given it changes nothing: every callback must
   * still be signed. Without secrets and without this, building the receiver throws.
   * @defaultValue false
   */
  allowUnsigned?: boolean;
  /**
   * Claims each callback by its signed `webhook-id` (the body's `taskId` when unsigned) before the
   * handler runs: a key done is answered `duplicate`, a key another instance is handling `503` with
   * `Retry-After: 5`. Share a `RedisIdempotencyStore` or `SqlIdempotencyStore` between replicas;
   * `false` turns deduplication off. @defaultValue an InMemoryIdempotencyStore
   */
  idempotencyStore?: IdempotencyStore | false;
  /** Called with unexpected handler errors (answered 500). */
  onError?: (error: unknown, callback: Callback) => void;
}

/**
 * The answer's JSON body, the same in every SDK (conformance/README.md, "callbacks/receiver.json"):
 * `handled` and `duplicate` (200), `refused` with the verify reason (401, or 400 for `invalid_body`),
 * `retry` (503), `failed` (422; with a reason when no handler takes the task type), `error` (500,
 * never the exception's text).
 */
export type ReceiverAnswer =
  | { status: 'handled' | 'duplicate' | 'retry' | 'error' }
  | { status: 'failed'; reason?: typeof NO_HANDLER }
  | { status: 'refused'; reason: RejectionReason };

/** The `reason` of the 422 answered for a task type without a handler. */
export const NO_HANDLER = 'no handler for task type';

export interface ReceiverResponse {
  /** The HTTP status. */
  status: number;
  headers: Record<string, string>;
  body: ReceiverAnswer;
}

/** An answer as every adapter sends it: JSON, with the given extra headers. */
export const answer = (
  status: number,
  body: ReceiverAnswer,
  headers: Record<string, string> = {},
): ReceiverResponse => ({
  status,
  headers: { 'content-type': 'application/json', ...headers },
  body,
});

/** The `Retry-After` of a callback whose key another receiver is handling (seconds). */
const IN_PROGRESS_RETRY_AFTER = '5';

let warnedHandlerForEveryType = false;
function warnHandlerForEveryType(): void {
  if (warnedHandlerForEveryType) return;
  warnedHandlerForEveryType = true;
  process.emitWarning(
    'one handler function for every task type is deprecated: give handlers as { [taskType]: handler }',
    { type: 'DeprecationWarning', code: 'DELAYED_TASKS_HANDLERS_FUNCTION' },
  );
}

/** The framework-free receiver: (headers, raw body) -> status, headers, body. */
export type CallbackReceiver = (
  headers: HeaderSource,
  body: Uint8Array | string,
) => Promise<ReceiverResponse>;

/** Builds the framework-free receiver: (headers, raw body) -> status, headers, body. */
export function createReceiver(options: ReceiverOptions): CallbackReceiver {
  const secrets = options.secrets ?? [];
  if (secrets.length === 0 && !options.allowUnsigned) {
    throw new Error('secrets are required (or set allowUnsigned for a service that does not sign callbacks)');
  }
  const verifier = secrets.length > 0 ? new WebhookVerifier({ ...options, secrets }) : undefined;
  const store =
    options.idempotencyStore === false
      ? undefined
      : (options.idempotencyStore ?? new InMemoryIdempotencyStore());
  const { handlers } = options;
  if (typeof handlers === 'function') warnHandlerForEveryType();

  return async (headers, body) => {
    let callback: Callback;
    let key: string;
    try {
      // The key is what the signature covers, read once verified: the `webhook-id` (the same on
      // every attempt of a task, owner-scoped), never the unsigned `Idempotency-Key` header,
      // which a replay within the tolerance could drop or swap for another task's. Unsigned (no
      // secrets), the body's task id: the key and the work come from the same bytes.
      const signedId = verifier?.verify(headers, body);
      callback = parseCallback(body);
      key = signedId ?? callback.taskId;
    } catch (err) {
      if (!(err instanceof CallbackRejectedError)) throw err;
      return answer(err.reason === 'invalid_body' ? 400 : 401, { status: 'refused', reason: err.reason });
    }
    const handler =
      typeof handlers === 'function'
        ? handlers
        : Object.hasOwn(handlers, callback.taskType)
          ? handlers[callback.taskType]
          : undefined;
    if (!handler) return answer(422, { status: 'failed', reason: NO_HANDLER });
    try {
      const run = () => handler(callback);
      const outcome = store ? await once(store, key, run) : (await run(), 'handled');
      if (outcome === 'in_progress')
        return answer(503, { status: 'retry' }, { 'retry-after': IN_PROGRESS_RETRY_AFTER });
      return answer(200, { status: outcome });
    } catch (err) {
      if (err instanceof RetryableError) {
        const retryAfter: Record<string, string> =
          err.retryAfterSeconds === undefined
            ? {}
            : { 'retry-after': String(Math.ceil(err.retryAfterSeconds)) };
        return answer(503, { status: 'retry' }, retryAfter);
      }
      if (err instanceof PermanentError) return answer(422, { status: 'failed' });
      options.onError?.(err, callback);
      return answer(500, { status: 'error' });
    }
  };
}
