import { describe, expect, it } from 'vitest';
import {
  routeNewTask,
  typeQueue,
  typeQueuePrefix,
  workflowQueueOf,
} from '../../../src/shared/task-queues.js';

describe('task-queue names', () => {
  it('hang every type queue off the base queue, under one prefix that visibility searches', () => {
    expect(typeQueue('delayed-tasks', '_default')).toBe('delayed-tasks.callbacks._default');
    expect(typeQueue('delayed-tasks', 'email')).toBe('delayed-tasks.callbacks.email');
    expect(typeQueue('q', 'email').startsWith(typeQueuePrefix('q'))).toBe(true);
  });

  it.each([
    { policy: { name: 'email' }, local: true },
    { policy: { name: 'sms', ratePerSecond: 5 }, local: false },
  ])('route a new $policy.name task to its type queue (local callback: $local)', ({ policy, local }) => {
    expect(routeNewTask('q', policy)).toEqual({
      workflowTaskQueue: `q.callbacks.${policy.name}`,
      callbackTaskQueue: `q.callbacks.${policy.name}`,
      localCallback: local,
    });
  });

  it('keep an input from before workflow shape v2 (no localCallback) on the shared queue', () => {
    expect(workflowQueueOf({ callbackTaskQueue: 'q.callbacks.email' }, 'q')).toBe('q');
    expect(workflowQueueOf({ callbackTaskQueue: 'q.callbacks.email', localCallback: false }, 'q')).toBe(
      'q.callbacks.email',
    );
  });
});
