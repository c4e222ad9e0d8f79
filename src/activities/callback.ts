/**
 * The callback activity: one HTTP POST per attempt. The workflow decides whether to try again.
 */
import { createHash } from 'node:crypto';
import { ApplicationFailure, Context, log } from '@temporalio/activity';
import { Agent, buildConnector, errors as undiciErrors, request, type Dispatcher } from 'undici';
import { envSecret } from '../config/environment.js';
import type { HeaderSource } from '../security/header-secrets.js';
import { HeaderSecretError, HeaderSecrets } from '../security/header-secrets.js';
import {
  CallbackGuard,
  CallbackRefusedError,
  systemResolver,
  type Resolver,
} from '../security/callback-guard.js';
import { WebhookSecrets } from '../security/webhook-secrets.js';
import { signWebhook, webhookId } from '../security/webhook-signature.js';
import { DEFAULT_OWNER, parseWorkflowId } from '../shared/owner.js';
import type { DeliveryEnvelope } from '../shared/delivery.js';
import { CallbackFailureType, type CallbackFailureDetails } from '../shared/task.js';
import { classifyResponse, type CallbackResult } from './classify.js';
import type { TraceSend } from '../shared/trace-send.js';

/** The body every callback receives. */
export interface CallbackBody {
  taskId: string;
  taskType: string;
  payload: Record<string, unknown>;
  payloadVersion: number;
  executeAt: string;
  attempt: number;
  traceId: string | null;
  /** Only in the callbacks of a schedule's occurrence: the schedule and the nominal time it runs for. */
  schedule?: { scheduleId: string; scheduledAt: string };
}

/** One attempt: the delivery envelope (src/shared/delivery.ts) of a task that names its URL. */
export interface CallbackInput extends Omit<DeliveryEnvelope, 'callbackUrl'> {
  callbackUrl: string;
}

/** Where the activity reports what it saw; the worker wires it to Prometheus. */
export interface CallbackObserver {
  attempted(
    taskType: string,
    outcome: 'success' | 'retryable' | 'permanent' | 'timeout' | 'held',
    seconds: number,
  ): void;
  /** First attempt only: how late the callback started compared with its due time. */
  fired(taskType: string, lagSeconds: number): void;
}

export interface CallbackDeps {
  /** Connection pool for callbacks; keep-alive across attempts and tasks. Built from `guard` by default. */
  dispatcher?: Dispatcher;
  observer?: CallbackObserver;
  userAgent?: string;
  /** The SSRF rules; the default refuses every private address. */
  guard?: CallbackGuard;
  /** DNS as the connection pool sees it (tests stand in for DNS here). */
  resolve?: Resolver;
  /** Signing secrets per owner, read at send time. */
  secrets?: WebhookSecrets;
  /** Header secrets of a task type (from the policy file). */
  headersFor?: (taskType: string) => Readonly<Record<string, HeaderSource>>;
  /** Reads header secrets' values (cached files, the environment through config). */
  headerSecrets?: HeaderSecrets;
  /** Most bytes of a response body read. @defaultValue 65536 */
  maxResponseBytes?: number;
  /**
   * Aborted when the worker's shutdown grace runs out (src/worker/shutdown.ts): an attempt still in
   * flight ends as a retryable failure, recorded, instead of being lost with the process.
   */
  stopping?: AbortSignal;
  /** Tracing on: each send in a client span whose `traceparent` replaces the one made from `traceId`. */
  traceSend?: TraceSend;
}

const noopObserver: CallbackObserver = { attempted: () => undefined, fired: () => undefined };

/**
 * Keep-alive pool shared by every callback of a worker process. It resolves each host itself and
 * connects only to addresses the guard allows; it follows no redirects (an undici Agent has no
 * redirect interceptor unless one is composed in) and ignores HTTP_PROXY and friends (only
 * undici's EnvHttpProxyAgent reads them).
 */
export function createCallbackDispatcher(
  guard = new CallbackGuard(),
  resolve: Resolver = systemResolver,
): Agent {
  return new Agent({
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 120_000,
    connections: 256,
    // One connector per port, each looking up with that port's rules (allowlist entries may pin one).
    connect: portConnectors(guard, resolve),
  });
}

function portConnectors(guard: CallbackGuard, resolve: Resolver): buildConnector.connector {
  const byPort = new Map<number, buildConnector.connector>();
  return (options, callback) => {
    const port = Number(options.port) || (options.protocol === 'https:' ? 443 : 80);
    let connector = byPort.get(port);
    if (!connector) byPort.set(port, (connector = buildConnector({ lookup: guard.lookup(resolve, port) })));
    connector(options, callback);
  };
}

export function createActivities(deps: CallbackDeps = {}) {
  const guard = deps.guard ?? new CallbackGuard();
  const dispatcher = deps.dispatcher ?? createCallbackDispatcher(guard, deps.resolve);
  const observer = deps.observer ?? noopObserver;
  const userAgent = deps.userAgent ?? 'delayed-task-service';
  const secrets = deps.secrets ?? new WebhookSecrets();
  const headersFor = deps.headersFor ?? (() => ({}));
  const send: SendOptions = {
    dispatcher,
    userAgent,
    guard,
    secrets,
    headersFor,
    headerSecrets: deps.headerSecrets ?? new HeaderSecrets(envSecret),
    maxResponseBytes: deps.maxResponseBytes ?? 64 * 1024,
    traceSend: deps.traceSend,
  };

  async function deliverCallback(input: CallbackInput): Promise<{ statusCode: number }> {
    const started = Date.now();
    const logContext = {
      taskId: input.taskId,
      taskType: input.taskType,
      traceId: input.traceId,
      attempt: input.attempt,
      // The logger strips its query string and credentials (src/observability/logger.ts).
      callbackUrl: input.callbackUrl,
    };

    const context = Context.current();
    const outcome = await post(input, send, {
      cancellation: deps.stopping
        ? AbortSignal.any([context.cancellationSignal, deps.stopping])
        : context.cancellationSignal,
      workflowId: context.info.workflowExecution?.workflowId ?? input.taskId,
    });
    const seconds = (Date.now() - started) / 1000;
    // The fire lag of the first attempt the receiver was asked for (a held one was not sent).
    if (input.attempt === 1 && !(outcome.kind === 'failure' && outcome.type === CallbackFailureType.Held))
      observer.fired(input.taskType, (started - Date.parse(input.executeAt)) / 1000);
    if (outcome.kind === 'success') {
      observer.attempted(input.taskType, 'success', seconds);
      log.info('callback delivered', { ...logContext, statusCode: outcome.statusCode, seconds });
      return { statusCode: outcome.statusCode };
    }
    const label =
      outcome.type === CallbackFailureType.Held
        ? 'held'
        : outcome.timedOut
          ? 'timeout'
          : outcome.type === CallbackFailureType.Permanent
            ? 'permanent'
            : 'retryable';
    observer.attempted(input.taskType, label, seconds);
    log.warn('callback attempt failed', {
      ...logContext,
      statusCode: outcome.statusCode,
      error: outcome.message,
      // What a refused host resolved to: the log's to keep, never the task's.
      ...(outcome.address !== undefined && { address: outcome.address }),
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

interface SendOptions {
  dispatcher: Dispatcher;
  userAgent: string;
  guard: CallbackGuard;
  secrets: WebhookSecrets;
  headersFor: (taskType: string) => Readonly<Record<string, HeaderSource>>;
  headerSecrets: HeaderSecrets;
  maxResponseBytes: number;
  traceSend: TraceSend | undefined;
}

/** A callback our own configuration cannot send yet: the task waits without spending an attempt. */
const held = (reason: string): CallbackResult => ({
  kind: 'failure',
  type: CallbackFailureType.Held,
  message: `held, not sent (no attempt counted): ${reason}`,
});

/** The SSRF guard refused the URL or what its host resolves to; the address goes to the log only. */
const refused = (err: CallbackRefusedError): CallbackResult => ({
  ...permanent(`callback refused: ${err.message}`),
  ...(typeof err.address === 'string' && { address: err.address }),
});

const permanent = (message: string): CallbackResult => ({
  kind: 'failure',
  type: CallbackFailureType.Permanent,
  message,
});

async function post(
  input: CallbackInput,
  send: SendOptions,
  attempt: { cancellation: AbortSignal; workflowId: string },
): Promise<CallbackResult> {
  // The callback body is the contract's, unchanged: the owner travels for signing, not in the body.
  const {
    callbackUrl: _url,
    timeoutMs: _timeout,
    owner: _owner,
    idempotencyKey = input.taskId,
    ...fields
  } = input;
  const body: CallbackBody = fields;
  const owner = input.owner ?? parseWorkflowId(attempt.workflowId).owner;
  try {
    // The URL as written (IP literals are connected to without a lookup); names are checked as they resolve.
    send.guard.checkUrl(input.callbackUrl);
  } catch (err) {
    if (err instanceof CallbackRefusedError) return refused(err);
    throw err;
  }
  const secrets = send.secrets.secretsFor(owner);
  if (secrets.length === 0) {
    // Our configuration gap, not the receiver's fault: held (never sent unsigned, no attempt spent).
    return held(
      owner === DEFAULT_OWNER
        ? 'no webhook signing secret for owner default: set WEBHOOK_SECRET or add it to WEBHOOK_SECRETS_FILE'
        : `no webhook signing secret for owner ${owner}: add it to WEBHOOK_SECRETS_FILE (npm run webhook-secrets -- create --owner ${owner})`,
    );
  }
  let configured: Record<string, string>;
  try {
    configured = await send.headerSecrets.resolve(send.headersFor(input.taskType));
  } catch (err) {
    if (err instanceof HeaderSecretError) return held(err.message);
    throw err;
  }
  const text = JSON.stringify(body);
  const id = webhookId(attempt.workflowId);
  const timestamp = Math.floor(Date.now() / 1000);
  const headers: Record<string, string> = {
    ...configured,
    'content-type': 'application/json',
    'user-agent': send.userAgent,
    'idempotency-key': idempotencyKey,
    'x-task-id': input.taskId,
    'x-task-type': input.taskType,
    'x-task-attempt': String(input.attempt),
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signWebhook(secrets, id, timestamp, text),
  };
  const traceparent = toTraceparent(input.traceId, input.taskId, input.attempt);
  if (traceparent) headers.traceparent = traceparent;
  const sendIt = () => sendPost(input, send, headers, text, attempt.cancellation);
  return send.traceSend ? send.traceSend(input.callbackUrl, headers, sendIt) : sendIt();
}

async function sendPost(
  input: CallbackInput,
  send: SendOptions,
  headers: Record<string, string>,
  text: string,
  cancellation: AbortSignal,
): Promise<CallbackResult> {
  const timeout = AbortSignal.timeout(input.timeoutMs);
  try {
    const response = await request(input.callbackUrl, {
      method: 'POST',
      headers,
      body: text,
      dispatcher: send.dispatcher,
      signal: AbortSignal.any([timeout, cancellation]),
      headersTimeout: input.timeoutMs,
      bodyTimeout: input.timeoutMs,
    });
    // Drain so the connection goes back to the pool; past the cap the connection is dropped instead.
    await response.body.dump({ limit: send.maxResponseBytes });
    const retryAfter = response.headers['retry-after'];
    return classifyResponse(
      response.statusCode,
      Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
      Date.now(),
    );
  } catch (err) {
    if (err instanceof CallbackRefusedError || (err as { code?: unknown }).code === 'ECALLBACKREFUSED') {
      return refused(err as CallbackRefusedError);
    }
    if (
      timeout.aborted ||
      err instanceof undiciErrors.HeadersTimeoutError ||
      err instanceof undiciErrors.BodyTimeoutError
    ) {
      return {
        kind: 'failure',
        type: CallbackFailureType.Retryable,
        timedOut: true,
        message: `callback timed out after ${input.timeoutMs} ms`,
      };
    }
    if (cancellation.aborted) {
      return {
        kind: 'failure',
        type: CallbackFailureType.Retryable,
        message: `callback cut off: ${describe(cancellation.reason)}`,
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
