/**
 * Tasks as the API started them before workflow shape v2: on the shared workflow queue, with no
 * `localCallback` in the input (for the upgrade and shape tests).
 */
import { buildTaskSpec } from '../../src/tasks/input.js';
import { taskStartOptions } from '../../src/tasks/start-options.js';
import { Policies } from '../../src/policies.js';
import { CallbackGuard } from '../../src/security/callback-guard.js';
import { TASK_WORKFLOW_TYPE } from '../../src/shared/constants.js';
import { DEFAULT_OWNER } from '../../src/shared/owner.js';
import type { Harness } from './harness.js';

/** Starts a task the pre-v2 way; returns its id. */
export async function startAsV1(
  h: Harness,
  taskType: string,
  taskId: string,
  fields: { delaySeconds: number; maxRetries?: number },
): Promise<string> {
  const policy = h.policies.forType(taskType)!;
  const { spec, fingerprint } = buildTaskSpec(
    { taskType, taskId, payload: { taskId }, callbackUrl: h.receiver.url, ...fields },
    {
      owner: DEFAULT_OWNER,
      now: Date.now(),
      limits: h.config.limits,
      policy,
      callbackTaskQueue: Policies.taskQueue(h.taskQueue, policy),
      guard: new CallbackGuard(h.config.callbacks),
      newTaskId: () => taskId,
    },
  );
  await h.client.workflow.start(
    TASK_WORKFLOW_TYPE,
    taskStartOptions(spec, fingerprint, h.taskQueue, 'REJECT_DUPLICATE'),
  );
  return taskId;
}
