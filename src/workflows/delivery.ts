/**
 * The delivery seam: which activity a due task's attempt runs, where and with which options, chosen
 * from the task's spec. `deliver.ts` calls what this returns and never asks which target it is; a new
 * target is one branch here plus its activity. Workflow code: deterministic, no I/O; activities are
 * imported as types only.
 *
 * Recorded histories replay unchanged: the choice is made from the input alone (`localCallback`,
 * `delivery`, fields absent in older inputs), never from configuration.
 */
import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { CallbackActivities } from '../activities/callback.js';
import { ATTEMPT_TIMEOUT_MARGIN_MS, LEASE_MAX_HOLD_MS } from '../shared/constants.js';
import {
  PULL_ACTIVITY,
  type DeliveryEnvelope,
  type DeliveryResult,
  type PullActivities,
  type PullDelivery,
} from '../shared/delivery.js';
import type { TaskSpec } from '../shared/task.js';

/** One attempt of a task's delivery: the envelope in, the target's result out, or a failure. */
export type DeliveryAttempt = (envelope: DeliveryEnvelope) => Promise<DeliveryResult>;

/**
 * The attempt of a task's target. `v2`: the task runs workflow shape v2 (`deliver.ts`), which may run
 * a callback as a local activity.
 */
export function deliveryAttemptOf(spec: TaskSpec, v2: boolean): DeliveryAttempt {
  if (spec.delivery?.mode === 'pull') return pullAttempt(spec, spec.delivery);
  return callbackAttempt(spec, v2);
}

/**
 * A pull task: the attempt is an activity on the owner's pull queue, which no worker of ours polls;
 * the API's lease route polls it for a consumer and completes or fails it on ack, nack or release.
 * No schedule-to-start timeout: a due task waits until it is leased. The heartbeat timeout is the
 * lease (`extend` heartbeats it); one that runs out is a failed attempt, retried with the backoff.
 */
function pullAttempt(spec: TaskSpec, delivery: PullDelivery): DeliveryAttempt {
  return proxyActivities<PullActivities>({
    taskQueue: spec.deliveryTaskQueue,
    heartbeatTimeout: delivery.leaseSeconds * 1000,
    startToCloseTimeout: LEASE_MAX_HOLD_MS,
    retry: { maximumAttempts: 1 },
    priority: { priorityKey: spec.priority },
    summary: `pull queue ${delivery.queue}`,
  })[PULL_ACTIVITY];
}

/** The HTTP callback: local on the type's queue (v2), or a regular activity on the callback queue. */
function callbackAttempt(spec: TaskSpec, v2: boolean): DeliveryAttempt {
  const options = {
    startToCloseTimeout: spec.timeoutMs + ATTEMPT_TIMEOUT_MARGIN_MS,
    // The workflow owns the retry schedule (deliver.ts); each attempt is one activity execution.
    retry: { maximumAttempts: 1 },
    summary: `POST ${spec.callbackUrl}`,
  };
  // Shape v2: the callback runs in the worker that runs this workflow, on the task type's own queue
  // (the input asks for it; tasks started before v2 never do). Attempts longer than the workflow
  // task timeout stay one attempt: the SDK keeps the workflow task alive while it runs.
  const deliverCallback =
    v2 && spec.localCallback === true
      ? proxyLocalActivities<CallbackActivities>(options).deliverCallback
      : proxyActivities<CallbackActivities>({
          ...options,
          taskQueue: spec.callbackTaskQueue,
          priority: { priorityKey: spec.priority },
        }).deliverCallback;
  // A callback task's envelope always carries its URL (`envelopeOf` in deliver.ts).
  return (envelope) => deliverCallback({ ...envelope, callbackUrl: envelope.callbackUrl ?? '' });
}
