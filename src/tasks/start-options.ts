/**
 * How a task's workflow is started: its id, queue, input, search attributes, memo and the summary
 * the Web UI shows. Shared with a schedule's action (src/schedules/input.ts), which starts the same
 * workflow through these builders, the benchmark's direct-client system and the tests that start
 * workflows by hand.
 */
import type { WorkflowStartOptions } from '@temporalio/client';
import { SEARCH_ATTRIBUTES } from '../shared/constants.js';
import { workflowIdOf } from '../shared/owner.js';
import type { TaskSpec } from '../shared/task.js';
import type { delayedTask } from '../workflows/delayed-task.js';

/**
 * The search attributes every task starts with (a schedule's occurrence too): lists filter on them.
 * A one-shot task adds its due time; an occurrence's workflow writes it when it starts.
 */
export function taskSearchAttributes(spec: TaskSpec) {
  return [
    { key: SEARCH_ATTRIBUTES.owner, value: spec.owner },
    { key: SEARCH_ATTRIBUTES.taskType, value: spec.taskType },
    { key: SEARCH_ATTRIBUTES.taskStatus, value: 'SCHEDULED' },
  ];
}

/** The memo every task starts with: what the list shows beside the search attributes. */
export function taskMemo(spec: TaskSpec, fingerprint: string) {
  return {
    specHash: fingerprint,
    ...(spec.callbackUrl !== undefined && { callbackUrl: spec.callbackUrl }),
    ...(spec.delivery && { deliveryMode: spec.delivery.mode }),
    priority: spec.priority,
  };
}

/** The first words of the Web UI's summary of a task: its type and where it goes. */
export function taskSummaryLine(spec: TaskSpec): string {
  return `${spec.taskType} → ${deliveryLabel(spec)}`;
}

/** Where a task goes, in words: `POST <url>` or `pull queue <queue>`. */
export function deliveryLabel(spec: Pick<TaskSpec, 'callbackUrl' | 'delivery'>): string {
  return spec.delivery ? `pull queue ${spec.delivery.queue}` : `POST ${spec.callbackUrl}`;
}

export function taskStartOptions(
  spec: TaskSpec,
  fingerprint: string,
  taskQueue: string,
  reuse: 'REJECT_DUPLICATE' | 'ALLOW_DUPLICATE',
): WorkflowStartOptions<typeof delayedTask> {
  return {
    workflowId: workflowIdOf(spec.owner, spec.taskId),
    taskQueue,
    args: [spec],
    workflowIdReusePolicy: reuse,
    // Workflow tasks of a saturated type wait on the server in priority order (shape v2: the
    // callback runs inside them); the callback activity of older tasks carries it as before.
    priority: { priorityKey: spec.priority },
    typedSearchAttributes: [
      ...taskSearchAttributes(spec),
      { key: SEARCH_ATTRIBUTES.executeAt, value: new Date(spec.executeAt) },
    ],
    memo: { ...taskMemo(spec, fingerprint), createdAt: spec.createdAt, executeAt: spec.executeAt },
    staticSummary: `${taskSummaryLine(spec)}, due ${spec.executeAt}`,
    staticDetails: [
      `**Owner:** ${spec.owner}, **task id:** ${spec.taskId}`,
      `**Task type:** ${spec.taskType}`,
      `**${spec.delivery ? 'Delivery' : 'Callback'}:** ${deliveryLabel(spec)}`,
      `**Due:** ${spec.executeAt}`,
      `**Retries:** ${spec.maxRetries}, **timeout:** ${spec.timeoutMs} ms, **priority:** ${spec.priority}`,
    ].join('\n'),
  };
}
