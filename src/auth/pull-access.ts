/**
 * What a key may do with pull delivery (docs/workers.md). A pull queue is addressed like a task type:
 * a key limited to some task types creates pull tasks only on queues its patterns match, and leases
 * only such queues, so its leases hold only tasks it could have created. A key limited to callback
 * hosts creates callback tasks only (a pull task has no host to hold it to).
 */
import type { Delivery } from '../shared/delivery.js';
import { permissionDenied, taskTypeMatches, type TaskAccess } from './principal.js';

/** 403 naming the field unless `access` may create this pull task. */
export function checkPullAccess(access: TaskAccess, spec: { taskType: string; delivery?: Delivery }): void {
  if (access.allowedCallbackHosts) {
    throw permissionDenied(
      'delivery',
      'this key is limited to callback hosts: it creates callback tasks only',
    );
  }
  const types = access.allowedTaskTypes;
  if (types && !types.some((pattern) => taskTypeMatches(spec.taskType, pattern))) {
    throw permissionDenied('taskType', `${spec.taskType} is not among this key's task types`);
  }
  const queue = spec.delivery?.queue;
  if (types && queue !== undefined && !types.some((pattern) => taskTypeMatches(queue, pattern))) {
    throw permissionDenied('delivery.queue', `${queue} is not among this key's task types`);
  }
}

/** 403 naming the field unless `access` may lease every one of `queues`. */
export function checkLeaseAccess(access: TaskAccess, queues: readonly string[]): void {
  if (access.allowedCallbackHosts) {
    throw permissionDenied('queues', 'this key is limited to callback hosts: it has no pull queues');
  }
  const types = access.allowedTaskTypes;
  queues.forEach((queue, index) => {
    if (types && !types.some((pattern) => taskTypeMatches(queue, pattern))) {
      throw permissionDenied(`queues.${index}`, `${queue} is not among this key's task types`);
    }
  });
}
