/**
 * Tasks as the API started them under the retired TASK_START_DELAY=true: the workflow started with a
 * start delay up to its due time (no workflow task before then), on the queues of workflow shape v2.
 * Such tasks may still be sleeping in a deployment that upgrades; the tests prove they keep working.
 */
import type { Task } from '../../src/contract/tasks.js';
import { TASK_WORKFLOW_TYPE } from '../../src/shared/constants.js';
import { initialTaskState } from '../../src/shared/task.js';
import { taskStartOptions } from '../../src/tasks/start-options.js';
import { toTask } from '../../src/tasks/views.js';
import type { Harness } from './harness.js';
import { oldSpec, type OldTask } from './shape-v1.js';
import { routeNewTask } from '../../src/shared/task-queues.js';

/** Starts a task the way TASK_START_DELAY did; returns the task as the API's create answered it. */
export async function startWithStartDelay(h: Harness, body: OldTask): Promise<Task> {
  const now = Date.now();
  const { workflowTaskQueue, ...routing } = routeNewTask(h.taskQueue, h.policies.forType(body.taskType)!);
  const { spec, fingerprint } = oldSpec(h, body, now, () => routing);
  await h.client.workflow.start(TASK_WORKFLOW_TYPE, {
    ...taskStartOptions(spec, fingerprint, workflowTaskQueue, 'REJECT_DUPLICATE'),
    startDelay: Date.parse(spec.executeAt) - now,
  });
  return toTask(initialTaskState(spec));
}
