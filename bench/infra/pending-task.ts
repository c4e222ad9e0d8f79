/**
 * A task that waits, started with the direct client exactly as the API starts it (its type's queue
 * and shape), for the store and console cost measurements.
 */
import type { Client } from '@temporalio/client';
import { TASK_WORKFLOW_TYPE } from '../../src/shared/constants.js';
import type { TaskSpec } from '../../src/shared/task.js';
import type { Policies } from '../../src/task-types/policies.js';
import { taskStartOptions } from '../../src/tasks/start-options.js';
import { routeNewTask } from '../../src/shared/task-queues.js';

export interface PendingTask {
  taskId: string;
  owner: string;
  taskType: string;
  payload: Record<string, unknown>;
  executeAt: number;
  /** Where it calls back when due. @defaultValue a closed port (a pending task never calls) */
  callbackUrl?: string;
}

/**
 * Starts `task` on the queues `routeNewTask` gives its type, as the API does. `startDelay`: with
 * a start delay up to its due time instead, so that seeding many tasks needs no worker (the console's
 * cost, which reads visibility only); the API no longer starts tasks so (TASK_START_DELAY is retired).
 */
export function startPending(
  client: Client,
  sharedQueue: string,
  policies: Policies,
  task: PendingTask,
  options: { now: number; startDelay: boolean },
): Promise<unknown> {
  const { workflowTaskQueue, callbackTaskQueue, localCallback } = routeNewTask(
    sharedQueue,
    policies.forType(task.taskType)!,
  );
  const spec: TaskSpec = {
    ...task,
    payloadVersion: 1,
    executeAt: new Date(task.executeAt).toISOString(),
    callbackUrl: task.callbackUrl ?? 'http://127.0.0.1:9/callback',
    maxRetries: 3,
    timeoutMs: 30_000,
    traceId: null,
    priority: 3,
    createdAt: new Date(options.now).toISOString(),
    callbackTaskQueue,
    localCallback,
  };
  const startDelay = task.executeAt - Date.now();
  return client.workflow.start(TASK_WORKFLOW_TYPE, {
    ...taskStartOptions(
      spec,
      'x'.repeat(64), // a fingerprint's length (SHA-256, hex)
      workflowTaskQueue,
      'REJECT_DUPLICATE',
    ),
    ...(options.startDelay && startDelay > 0 ? { startDelay } : {}),
  });
}
