/**
 * What a key limited to some task types or callback hosts may see: the functions the API and the
 * console both decide with (src/auth/principal.ts). Pure; the integration tests ask the same over HTTP.
 */
import { describe, expect, it } from 'vitest';
import {
  checkBulkAccess,
  countableTypes,
  readableTask,
  visibleTasks,
  type TaskAccess,
} from '../../../src/auth/principal.js';
import { ApiError, ErrorCode } from '../../../src/errors/catalog.js';

const access = (limits: Partial<TaskAccess>): TaskAccess => ({
  owner: 'shop',
  allowedTaskTypes: undefined,
  allowedCallbackHosts: undefined,
  ...limits,
});
const types = access({ allowedTaskTypes: ['order.*', 'coupon.expire'] });
const hosts = access({ allowedCallbackHosts: ['*.partner.test'] });

const task = (taskType: string, callbackUrl?: string) => ({ taskId: `t-${taskType}`, taskType, callbackUrl });

describe("a key's limits", () => {
  it.each([
    { who: 'types', key: types, task: task('order.close', 'http://a.test/'), visible: true },
    { who: 'types', key: types, task: task('coupon.expire', 'http://a.test/'), visible: true },
    { who: 'types', key: types, task: task('coupon.expire_soon', 'http://a.test/'), visible: false },
    { who: 'types', key: types, task: task('billing.invoice', 'http://a.test/'), visible: false },
    { who: 'hosts', key: hosts, task: task('billing.invoice', 'https://api.partner.test/x'), visible: true },
    {
      who: 'hosts',
      key: hosts,
      task: task('billing.invoice', 'https://partner.test.evil/x'),
      visible: false,
    },
    // A summary without its URL is hidden from a host-limited key.
    { who: 'hosts', key: hosts, task: task('billing.invoice'), visible: false },
  ])('$who: $task.taskType at $task.callbackUrl is visible: $visible', ({ key, task: t, visible }) => {
    expect(visibleTasks(key, [t])).toEqual(visible ? [t] : []);
    if (visible) expect(readableTask(key, t)).toBe(t);
    else {
      // Exactly what an absent task answers: 404 TASK_NOT_FOUND naming only the id asked for.
      const refusal = (() => {
        try {
          readableTask(key, t);
        } catch (err) {
          return err;
        }
      })() as ApiError;
      expect(refusal).toBeInstanceOf(ApiError);
      expect(refusal.code).toBe(ErrorCode.TaskNotFound);
      expect(refusal.message).toBe(`no task with id ${t.taskId}`);
    }
  });

  it('counts within the task types; a host-limited key counts nothing', () => {
    expect(countableTypes(access({}))).toEqual({ taskTypes: undefined });
    expect(countableTypes(types)).toEqual({ taskTypes: ['order.*', 'coupon.expire'] });
    expect(countableTypes(hosts)).toBeUndefined();
  });

  it('allows a bulk action only within the task types, and never to a host-limited key', () => {
    expect(() => checkBulkAccess(access({}), undefined)).not.toThrow();
    expect(() => checkBulkAccess(types, 'order.close')).not.toThrow();
    expect(() => checkBulkAccess(types, 'billing.invoice')).toThrow(ApiError);
    expect(() => checkBulkAccess(types, undefined)).toThrow(/task types/);
    expect(() => checkBulkAccess(hosts, 'order.close')).toThrow(/callback hosts/);
  });
});
