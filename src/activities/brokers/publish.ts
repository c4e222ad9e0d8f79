/**
 * The broker attempt (`publishToBroker`): the task's envelope, the callback's body signed as a
 * callback is, published to the task's declared broker through the worker's pool. It succeeds only
 * when the broker confirmed the write; anything else (broker down, write refused, no confirm within
 * the task's timeout) is a retryable failure the workflow retries with the task's backoff.
 */
import { ApplicationFailure, Context, log } from '@temporalio/activity';
import { destinationAllowed } from '../../config/brokers.js';
import { WebhookSecrets } from '../../security/webhook-secrets.js';
import { signWebhook, webhookId } from '../../security/webhook-signature.js';
import {
  BROKER_ACTIVITY,
  brokerDestination,
  type BrokerPublishInput,
  type DeliveryResult,
} from '../../shared/delivery.js';
import { DEFAULT_OWNER, parseWorkflowId } from '../../shared/owner.js';
import { CallbackFailureType } from '../../shared/task.js';
import type { CallbackBody } from '../callback.js';
import type { BrokerPool } from './pool.js';
import type { BrokerMessage } from './publisher.js';

/** Where the activity reports each publish; the worker wires it to Prometheus. */
export interface BrokerObserver {
  published(broker: string, kind: string, outcome: 'published' | 'failed' | 'held', seconds: number): void;
}

export interface BrokerDeps {
  pool: BrokerPool;
  secrets?: WebhookSecrets;
  observer?: BrokerObserver;
  /** Aborted when the worker's shutdown grace runs out: an unconfirmed publish fails (retried), not lost. */
  stopping?: AbortSignal;
}

class NotPublished extends Error {
  override name = 'NotPublished';
  constructor(
    message: string,
    readonly type: CallbackFailureType,
  ) {
    super(message);
  }
}

export function createBrokerActivities(deps: BrokerDeps) {
  const secrets = deps.secrets ?? new WebhookSecrets();
  const observer = deps.observer;

  async function publishToBroker(input: BrokerPublishInput): Promise<DeliveryResult> {
    const { delivery } = input;
    const started = Date.now();
    const context = Context.current();
    const workflowId = context.info.workflowExecution?.workflowId ?? input.taskId;
    const owner = input.owner ?? parseWorkflowId(workflowId).owner;
    const logContext = {
      taskId: input.taskId,
      taskType: input.taskType,
      attempt: input.attempt,
      broker: delivery.broker,
    };
    try {
      const declaration = deps.pool.declarations.get(delivery.broker);
      if (!declaration) {
        throw new NotPublished(
          `held, not sent (no attempt counted): broker ${delivery.broker} is not declared in this worker's BROKERS_FILE`,
          CallbackFailureType.Held,
        );
      }
      const allowed = declaration.owners[owner];
      const destination = brokerDestination(delivery);
      if (!allowed || !destinationAllowed(destination, allowed)) {
        throw new NotPublished(
          `broker ${delivery.broker} no longer allows owner ${owner} to publish to ${destination}`,
          CallbackFailureType.Permanent,
        );
      }
      const message = messageOf(input, owner, workflowId, secrets);
      await confirmedWithin(deps.pool.publish(declaration, message, delivery), input.timeoutMs, [
        context.cancellationSignal,
        ...(deps.stopping ? [deps.stopping] : []),
      ]);
      const seconds = (Date.now() - started) / 1000;
      observer?.published(delivery.broker, delivery.kind, 'published', seconds);
      log.info('published to broker', { ...logContext, seconds });
      return {};
    } catch (err) {
      const seconds = (Date.now() - started) / 1000;
      const type = err instanceof NotPublished ? err.type : CallbackFailureType.Retryable;
      const message =
        err instanceof NotPublished
          ? err.message
          : `broker ${delivery.broker}: ${(err as Error).message ?? String(err)}`;
      observer?.published(
        delivery.broker,
        delivery.kind,
        type === CallbackFailureType.Held ? 'held' : 'failed',
        seconds,
      );
      log.warn('broker publish failed', { ...logContext, error: message });
      // The workflow owns retries; this failure only reports one attempt.
      throw ApplicationFailure.create({ type, message, details: [{}], nonRetryable: true });
    }
  }

  return { [BROKER_ACTIVITY]: publishToBroker } as { publishToBroker: typeof publishToBroker };
}

/** The callback's body and its signed metadata; held when the owner has no signing secret. */
function messageOf(
  input: BrokerPublishInput,
  owner: string,
  workflowId: string,
  secrets: WebhookSecrets,
): BrokerMessage {
  const {
    callbackUrl: _url,
    timeoutMs: _timeout,
    owner: _owner,
    idempotencyKey = input.taskId,
    delivery: _delivery,
    ...fields
  } = input;
  const body: CallbackBody = fields;
  const owned = secrets.secretsFor(owner);
  if (owned.length === 0) {
    throw new NotPublished(
      `held, not sent (no attempt counted): no webhook signing secret for owner ${owner}${owner === DEFAULT_OWNER ? ': set WEBHOOK_SECRET' : ': add it to WEBHOOK_SECRETS_FILE'}`,
      CallbackFailureType.Held,
    );
  }
  const text = JSON.stringify(body);
  const id = webhookId(workflowId);
  const timestamp = Math.floor(Date.now() / 1000);
  return {
    body: text,
    payload: input.payload,
    idempotencyKey,
    taskType: input.taskType,
    headers: {
      'content-type': 'application/json',
      'idempotency-key': idempotencyKey,
      'task-id': input.taskId,
      'task-type': input.taskType,
      'task-attempt': String(input.attempt),
      'webhook-id': id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signWebhook(owned, id, timestamp, text),
    },
  };
}

/** The publish's confirm, or a failure once `timeoutMs` passed or a signal aborted (the publish may still land: at least once). */
async function confirmedWithin(
  publishing: Promise<void>,
  timeoutMs: number,
  signals: AbortSignal[],
): Promise<void> {
  const signal = AbortSignal.any([AbortSignal.timeout(timeoutMs), ...signals]);
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_resolve, reject) => {
    onAbort = () =>
      reject(
        new Error(
          signal.reason instanceof DOMException && signal.reason.name === 'TimeoutError'
            ? `no confirm within ${timeoutMs} ms (timeoutMs)`
            : 'publish abandoned unconfirmed: the attempt was cancelled or the worker is stopping',
        ),
      );
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    await Promise.race([publishing, aborted]);
  } finally {
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}
