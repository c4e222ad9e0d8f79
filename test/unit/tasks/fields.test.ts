/**
 * A task field cannot be forgotten halfway. Every field of a create's body reaches the Task that GET
 * returns, and every field of a list's TaskSummary is what the workflow's start wrote to visibility.
 * Each table below is typed by the contract: a new field does not compile until it has a sample here,
 * and the test then names the step it did not reach (docs/development.md, "Adding a task field").
 */
import { defaultPayloadConverter } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/environment.js';
import type { CreateTaskBody, ListTasksQuery, Task, TaskSummary } from '../../../src/contract/tasks.js';
import { initialTaskState } from '../../../src/shared/task.js';
import { buildTaskSpec } from '../../../src/tasks/input.js';
import { taskStartOptions } from '../../../src/tasks/start-options.js';
import { toTaskSummary, toTask } from '../../../src/tasks/views.js';
import { TaskVisibility } from '../../../src/tasks/visibility.js';
import type { TemporalCalls } from '../../../src/temporal/calls.js';
import { Policies } from '../../../src/task-types/policies.js';

const now = Date.parse('2026-12-02T10:00:00.000Z');
const ctx = {
  owner: 'orders',
  now,
  limits: loadConfig({}).limits,
  policy: new Policies().forType('any.type')!,
  callbackTaskQueue: 'q.callbacks._default',
  localCallback: true,
  newTaskId: () => 'generated',
};

/** A value for each field of a create's body, and the Task field it must reach (itself by default). */
const CREATE_SAMPLES: { [K in keyof CreateTaskBody]-?: { value: CreateTaskBody[K]; reaches?: keyof Task } } =
  {
    taskType: { value: 'a.b' },
    payload: { value: { x: 1 } },
    delaySeconds: { value: 60, reaches: 'executeAt' },
    executeAt: { value: '2026-12-02T10:05:00.000Z' },
    callbackUrl: { value: 'https://h.example/cb' },
    delivery: { value: { mode: 'pull', queue: 'a.b', leaseSeconds: 60 } },
    taskId: { value: 'order-7' },
    maxRetries: { value: 2 },
    timeoutMs: { value: 1500 },
    payloadVersion: { value: 1 },
    traceId: { value: 'trace-7' },
    priority: { value: 1 },
  };

const base: CreateTaskBody = { taskType: 'a.b', payload: { x: 1 }, callbackUrl: 'https://h.example/cb' };

describe('a field of the create body', () => {
  it.each(Object.entries(CREATE_SAMPLES))('%s reaches the Task', (field, { value, reaches }) => {
    const body = { ...base, delaySeconds: 30, [field]: value } as CreateTaskBody;
    if (field === 'executeAt') delete body.delaySeconds;
    if (field === 'delivery') delete body.callbackUrl;
    const task = toTask(initialTaskState(buildTaskSpec(body, ctx).spec));
    const expected =
      field === 'delaySeconds' ? new Date(now + (value as number) * 1000).toISOString() : value;
    expect(
      task[reaches ?? (field as keyof Task)],
      `buildTaskSpec (src/tasks/input.ts) drops ${field}`,
    ).toEqual(expected);
  });
});

describe('a field of the list summary', () => {
  const { spec, fingerprint } = buildTaskSpec({ ...base, delaySeconds: 30, traceId: 't', priority: 2 }, ctx);
  const options = taskStartOptions(spec, fingerprint, 'q', 'REJECT_DUPLICATE');
  const summary = toTaskSummary({
    execution: { workflowId: options.workflowId },
    memo: {
      fields: Object.fromEntries(
        Object.entries(options.memo ?? {}).map(([key, value]) => [
          key,
          defaultPayloadConverter.toPayload(value),
        ]),
      ),
    },
    searchAttributes: {
      // As visibility answers them: JSON payloads, a time as its RFC 3339 text.
      indexedFields: Object.fromEntries(
        (options.typedSearchAttributes as { key: { name: string }; value: unknown }[]).map(
          ({ key, value }) => [
            key.name,
            defaultPayloadConverter.toPayload(value instanceof Date ? value.toISOString() : value),
          ],
        ),
      ),
    },
  });
  const task = toTask(initialTaskState(spec));
  /** Summary fields that a task just started has no Task value for. */
  const LIST_ONLY: Partial<Record<keyof TaskSummary, unknown>> = {};

  it.each(Object.keys(summary) as (keyof TaskSummary)[])('%s is what the start wrote', (field) => {
    const expected = field in LIST_ONLY ? LIST_ONLY[field] : task[field as keyof Task];
    expect(
      summary[field],
      `the list reads ${field} from visibility: write it at start (src/tasks/start-options.ts) and read it in toTaskSummary (src/tasks/views.ts)`,
    ).toEqual(expected);
  });
});

/** A value for each list filter, or why the visibility query does not carry it. */
const LIST_SAMPLES: { [K in keyof ListTasksQuery]-?: { value: ListTasksQuery[K] } | { notInQuery: string } } =
  {
    status: { value: 'FAILED' },
    taskType: { value: 'a.b' },
    idPrefix: { notInQuery: 'matched on the page, case-sensitively' },
    dueAfter: { value: '2026-12-02T10:00:00Z' },
    dueBefore: { value: '2026-12-03T10:00:00Z' },
    pageSize: { notInQuery: 'paging' },
    pageToken: { notInQuery: 'paging' },
    owner: { notInQuery: 'the caller picks whose tasks (TaskService.list)' },
  };

describe('a list filter', () => {
  const visibility = new TaskVisibility({} as TemporalCalls, 'q');
  const unfiltered = visibility.listQuery('orders', {}).toString();
  it.each(Object.entries(LIST_SAMPLES).filter(([, sample]) => 'value' in sample))(
    '%s narrows the visibility query',
    (field, sample) => {
      const query = visibility.listQuery('orders', { [field]: (sample as { value: unknown }).value });
      expect(query.toString(), `listQuery (src/tasks/visibility.ts) ignores ${field}`).not.toBe(unfiltered);
    },
  );
});
