/**
 * The visibility query builder: the only writer of list and count queries. Pure: the queries it
 * writes are run against a real server by the list, paging and console tests.
 */
import { describe, expect, it } from 'vitest';
import { quote, VisibilityQuery } from '../../../src/tasks/query.js';

const base = VisibilityQuery.tasks('delayed-tasks');

describe('visibility queries', () => {
  it("name this service's workflows on the shared queue and on every type's own queue", () => {
    expect(base.toString()).toBe(
      "WorkflowType = 'delayedTask' AND (TaskQueue = 'delayed-tasks' OR TaskQueue STARTS_WITH 'delayed-tasks.callbacks.')",
    );
  });

  it('add clauses in order, without changing the query they start from', () => {
    const narrowed = base.status('FAILED').is('taskType', 'order.close').open();
    expect(narrowed.toString()).toBe(
      `${base.toString()} AND TaskStatus = 'FAILED' AND TaskType = 'order.close' AND ExecutionStatus = 'Running'`,
    );
    expect(base.toString()).not.toContain('FAILED');
  });

  it('count the default owner with the tasks that predate owners', () => {
    expect(base.owner('default').toString()).toContain("(Owner = 'default' OR Owner IS NULL)");
    expect(base.owner('billing').toString()).toContain("Owner = 'billing'");
  });

  it('write time ranges half-open, in UTC with milliseconds, either end optional', () => {
    const at = Date.parse('2026-12-04T10:00:00Z');
    expect(base.between('executeAt', at, at + 60_000).toString()).toContain(
      "ExecuteAt >= '2026-12-04T10:00:00.000Z' AND ExecuteAt < '2026-12-04T10:01:00.000Z'",
    );
    expect(base.between('closeTime', undefined, at).toString()).toMatch(/CloseTime < '[^']+'$/);
    expect(base.between('closeTime', undefined, undefined).toString()).toBe(base.toString());
  });

  it("keep to a key's task types: exact names and prefixes, one group of alternatives", () => {
    expect(base.matchesAny('taskType', ['order.close', 'coupon.*']).toString()).toBe(
      `${base.toString()} AND (TaskType = 'order.close' OR TaskType STARTS_WITH 'coupon.')`,
    );
    expect(() => base.matchesAny('taskType', [])).toThrow(/at least one/);
    expect(() => base.matchesAny('taskType', ["x' OR 'a'='a*"])).toThrow(/quotes/);
  });

  it('write lists, and leave out an empty NOT IN', () => {
    expect(base.oneOf('taskStatus', ['SCHEDULED', 'RUNNING']).toString()).toContain(
      "TaskStatus IN ('SCHEDULED', 'RUNNING')",
    );
    expect(base.noneOf('runId', []).toString()).toBe(base.toString());
    expect(base.noneOf('runId', ['r1', 'r2']).toString()).toContain("RunId NOT IN ('r1', 'r2')");
  });

  it.each([["o'clock"], ['a\\b'], ['x" OR 1=1'], ['line\nbreak'], ['nul\u0000']])(
    'refuse a value that could leave its quotes: %j',
    (value) => {
      expect(() => quote(value)).toThrow(/may not contain/);
      expect(() => base.is('taskType', value)).toThrow(/may not contain/);
      expect(() => base.startsWith('workflowId', value)).toThrow(/may not contain/);
    },
  );
});
