/**
 * The callback activity: one HTTP POST per attempt. The workflow decides whether to try again.
 */
import { createHash } from 'node:crypto';
import { ApplicationFailure, Context, log } from '@temporalio/activity';
import { Agent, errors as undiciErrors, request, type Dispatcher } from 'undici';
import { CallbackFailureType, type CallbackFailureDetails } from '../shared/task.js';
import { classifyResponse, type AttemptOutcome } from './classify.js';

/** The body every callback receives. */
export interface CallbackBody {
  taskId: string;
  taskType: string;
  payload: Record<string, unknown>;
  payloadVersion: number;
  executeAt: string;
  attempt: number;
  traceId: string | null;
}

/** One attempt: the body, and where and how long to send it. */
export interface CallbackInput extends CallbackBody {
  /** Owner of the task (src/shared/owner.ts); absent in attempts scheduled before owners existed. */
  owner?: string;
  callbackUrl: string;
  timeoutMs: number;
}

/** Where the activity reports what it saw; the worker wires it to Prometheus. */
export interface CallbackObserver {
  attempted(
    taskType: string,
    outcome: 'success' | 'retryable' | 'permanent' | 'timeout',
    seconds: number,
  ): void;
  /** First attempt only: how late the callback started compared with its due time. */
  fired(taskType: string, lagSeconds: number): void;
}

export interface CallbackDeps {
  /** Connection pool for callbacks; keep-alive across attempts and tasks. */
  dispatcher?: Dispatcher;
  observer?: CallbackObserver;
  userAgent?: string;
}

const noopObserver: CallbackObserver = { attempted: () => undefined, fired: () => undefined };

/** Keep-alive pool shared by every callback of a worker process. */
export function createCallbackDispatcher(): Agent {
  return new Agent({ keepAliveTimeout: 30_000, keepAliveMaxTimeout: 120_000, connections: 256 });
}

export function createActivities(deps: CallbackDeps = {}) {
  const dispatcher = deps.dispatcher ?? createCallbackDispatcher();
  const observer = deps.observer ?? noopObserver;
  const userAgent = deps.userAgent ?? 'delayed-task-service';

  async function deliverCallback(input: CallbackInput): Promise<{ statusCode: number }> {
    const started = Date.now();
    if (input.attempt === 1) observer.fired(input.taskType, (started - Date.parse(input.executeAt)) / 1000);
    const logContext = {
      taskId: input.taskId,
      taskType: input.taskType,
      traceId: input.traceId,
      attempt: input.attempt,
    };

    const outcome = await post(input, dispatcher, userAgent, Context.current().cancellationSignal);
    const seconds = (Date.now() - started) / 1000;
    if (outcome.kind === 'success') {
      observer.attempted(input.taskType, 'success', seconds);
      log.info('callback delivered', { ...logContext, statusCode: outcome.statusCode, seconds });
      return { statusCode: outcome.statusCode };
    }
    const label = outcome.message.startsWith('callback timed out')
      ? 'timeout'
      : outcome.type === CallbackFailureType.Permanent
        ? 'permanent'
        : 'retryable';
    observer.attempted(input.taskType, label, seconds);
    log.warn('callback attempt failed', {
      ...logContext,
      statusCode: outcome.statusCode,
      error: outcome.message,
    });
    const details: CallbackFailureDetails = {};
    if (outcome.statusCode !== undefined) details.statusCode = outcome.statusCode;
    if (outcome.retryAfterMs !== undefined) details.retryAfterMs = outcome.retryAfterMs;
    throw ApplicationFailure.create({
      type: outcome.type,
      message: outcome.message,
      details: [details],
      // The workflow owns retries; this failure only reports one attempt.
      nonRetryable: true,
    });
  }

  return { deliverCallback };
}

export type CallbackActivities = ReturnType<typeof createActivities>;

async function post(
  input: CallbackInput,
  dispatcher: Dispatcher,
  userAgent: string,
  cancellation: AbortSignal,
): Promise<AttemptOutcome> {
  // The callback body is the contract's, unchanged: the owner travels for signing, not in the body.
  const { callbackUrl: _url, timeoutMs: _timeout, owner: _owner, ...fields } = input;
  const body: CallbackBody = fields;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': userAgent,
    'idempotency-key': input.taskId,
    'x-task-id': input.taskId,
    'x-task-type': input.taskType,
    'x-task-attempt': String(input.attempt),
  };
  const traceparent = toTraceparent(input.traceId, input.taskId, input.attempt);
  if (traceparent) headers.traceparent = traceparent;

  const timeout = AbortSignal.timeout(input.timeoutMs);
  try {
    const response = await request(input.callbackUrl, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
      dispatcher,
      signal: AbortSignal.any([timeout, cancellation]),
      headersTimeout: input.timeoutMs,
      bodyTimeout: input.timeoutMs,
    });
    // Drain so the connection goes back to the pool.
    await response.body.dump({ limit: 64 * 1024 });
    const retryAfter = response.headers['retry-after'];
    return classifyResponse(
      response.statusCode,
      Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
      Date.now(),
    );
  } catch (err) {
    if (
      timeout.aborted ||
      err instanceof undiciErrors.HeadersTimeoutError ||
      err instanceof undiciErrors.BodyTimeoutError
    ) {
      return {
        kind: 'failure',
        type: CallbackFailureType.Retryable,
        message: `callback timed out after ${input.timeoutMs} ms`,
      };
    }
    if (err instanceof undiciErrors.InvalidArgumentError || err instanceof TypeError) {
      return {
        kind: 'failure',
        type: CallbackFailureType.Permanent,
        message: `callback URL rejected: ${describe(err)}`,
      };
    }
    return {
      kind: 'failure',
      type: CallbackFailureType.Retryable,
      message: `callback request failed: ${describe(err)}`,
    };
  }
}

function describe(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as NodeJS.ErrnoException).code;
    return code ? `${code} ${err.message}` : err.message;
  }
  return String(err);
}

/**
 * W3C traceparent from a client trace id: a 32-hex id is used as the trace id as is; any other id
 * is hashed into one, so the receiver can still correlate. The span id is per attempt.
 */
export function toTraceparent(traceId: string | null, taskId: string, attempt: number): string | undefined {
  if (!traceId) return undefined;
  const parts = /^00-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/.exec(traceId);
  const trace = parts?.[1] ?? (/^[0-9a-f]{32}$/.test(traceId) ? traceId : hex(traceId, 32));
  if (/^0+$/.test(trace)) return undefined;
  return `00-${trace}-${hex(`${taskId}#${attempt}`, 16)}-01`;
}

function hex(value: string, length: number): string {
  return createHash('sha256').update(value).digest('hex').slice(0, length);
}
