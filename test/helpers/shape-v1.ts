/**
 * Tasks as earlier versions of the API started them, for the upgrade, shape and legacy tests: the
 * spec is built as the API builds it, then started the old way.
 */
import { buildTaskSpec } from '../../src/tasks/input.js';
import { taskStartOptions } from '../../src/tasks/start-options.js';
import type { TaskTypePolicy } from '../../src/task-types/policies.js';
import { CallbackGuard } from '../../src/security/callback-guard.js';
import { TASK_WORKFLOW_TYPE } from '../../src/shared/constants.js';
import { DEFAULT_OWNER } from '../../src/shared/owner.js';
import type { Harness } from './harness.js';
import { typeQueue } from '../../src/shared/task-queues.js';

export interface OldTask {
  taskType: string;
  taskId: string;
  payload: Record<string, unknown>;
  delaySeconds: number;
  maxRetries?: number;
}

/** The spec and fingerprint the API builds for `body` (owner default), with the routing given. */
export function oldSpec(
  h: Harness,
  body: OldTask,
  now: number,
  routing: (policy: TaskTypePolicy) => { callbackTaskQueue: string; localCallback?: boolean },
): ReturnType<typeof buildTaskSpec> {
  const policy = h.policies.forType(body.taskType)!;
  return buildTaskSpec(
    { ...body, callbackUrl: h.receiver.url },
    {
      owner: DEFAULT_OWNER,
      now,
      limits: h.config.limits,
      policy,
      ...routing(policy),
      guard: new CallbackGuard(h.config.callbacks),
      newTaskId: () => body.taskId,
    },
  );
}

/**
 * Starts a task as the API did before workflow shape v2: on the shared workflow queue, with no
 * `localCallback` in the input. Returns its id.
 */
export async function startAsV1(
  h: Harness,
  taskType: string,
  taskId: string,
  fields: { delaySeconds: number; maxRetries?: number },
): Promise<string> {
  const { spec, fingerprint } = oldSpec(
    h,
    { taskType, taskId, payload: { taskId }, ...fields },
    Date.now(),
    (policy) => ({
      callbackTaskQueue: typeQueue(h.taskQueue, policy.name),
    }),
  );
  await h.client.workflow.start(
    TASK_WORKFLOW_TYPE,
    taskStartOptions(spec, fingerprint, h.taskQueue, 'REJECT_DUPLICATE'),
  );
  return taskId;
}
