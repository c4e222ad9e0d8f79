/** Workflow ids of owners' tasks: the task id for `default`, `<owner>/<taskId>` otherwise, and back. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_OWNER, parseWorkflowId, workflowIdOf } from '../../../src/shared/owner.js';
import { ownerOf } from '../../../src/shared/task.js';

describe('workflow ids', () => {
  it.each([
    { owner: 'default', taskId: 'order-1', workflowId: 'order-1' },
    { owner: 'orders', taskId: 'order-1', workflowId: 'orders/order-1' },
    { owner: 'billing.eu', taskId: 'a:b.c-d', workflowId: 'billing.eu/a:b.c-d' },
  ])('$owner + $taskId <-> $workflowId', ({ owner, taskId, workflowId }) => {
    expect(workflowIdOf(owner, taskId)).toBe(workflowId);
    expect(parseWorkflowId(workflowId)).toEqual({ owner, taskId });
  });

  it('never gives two owners the same workflow id for one task id', () => {
    const ids = ['default', 'orders', 'billing'].map((owner) => workflowIdOf(owner, 'x'));
    expect(new Set(ids).size).toBe(3);
  });

  it('reads a workflow input recorded before owners existed as owner default', () => {
    expect(ownerOf({} as { owner: string })).toBe(DEFAULT_OWNER);
    expect(ownerOf({ owner: 'orders' })).toBe('orders');
  });
});
