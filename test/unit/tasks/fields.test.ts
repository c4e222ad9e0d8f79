/**
 * A task field cannot be forgotten halfway. Every field of a create's body reaches the Task that GET
 * returns, every field of a list's TaskSummary is what the workflow's start wrote to visibility (for
 * a task created with every field set, so an optional one counts too), every search attribute is
 * written at start, and every list filter narrows the visibility query. Each table below is typed by
 * the contract: a new field does not compile until it has a sample here, and the test then names the
 * step it did not reach (docs/development.md, "Adding a task field").
 */
import { defaultPayloadConverter } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/environment.js';
import {
  TaskSummarySchema,
  type CreateTaskBody,
  type ListTasksQuery,
  type Task,
  type TaskSummary,
} from '../../../src/contract/tasks.js';
import { actionOf, definitionOf } from '../../../src/schedules/input.js';
import { ALL_SEARCH_ATTRIBUTES, SEARCH_ATTRIBUTES } from '../../../src/shared/constants.js';
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

/**
 * A value for each field of a create's body, and the Task field it must reach: itself by default,
 * which a field the Task lacks cannot be (add it to TaskSchema, or name the field it reaches).
 */
const CREATE_SAMPLES: {
  [K in keyof CreateTaskBody]-?: { value: CreateTaskBody[K] } & (K extends keyof Task
    ? { reaches?: keyof Task }
    : { reaches: keyof Task });
} = {
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

/** A create with every field of CREATE_SAMPLES set but one of each pair that exclude each other. */
function everyField(without: readonly (keyof CreateTaskBody)[]): CreateTaskBody {
  const body: Record<string, unknown> = {};
  for (const [field, { value }] of Object.entries(CREATE_SAMPLES)) {
    if (!without.includes(field as keyof CreateTaskBody)) body[field] = value;
  }
  return body as CreateTaskBody;
}

/** A callback task and a pull task, every other field set: optional fields are in the Task too. */
const EVERY_FIELD = {
  'a callback task': everyField(['executeAt', 'delivery']),
  'a pull task': everyField(['executeAt', 'callbackUrl']),
};

/** Summary fields a Task does not have, and how the summary derives them from the Task. */
const SUMMARY_ONLY: { [K in Exclude<keyof TaskSummary, keyof Task>]-?: (task: Task) => TaskSummary[K] } = {
  deliveryMode: (task) => task.delivery?.mode,
};

/** What a task's start writes to visibility, as visibility answers it: the list entry of the task. */
function started(body: CreateTaskBody) {
  const { spec, fingerprint } = buildTaskSpec(body, ctx);
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
  return { spec, fingerprint, options, summary, task: toTask(initialTaskState(spec)) };
}

describe.each(Object.entries(EVERY_FIELD))('a field of the list summary, for %s', (_, body) => {
  const { summary, task } = started(body);
  it.each(Object.keys(TaskSummarySchema.properties) as (keyof TaskSummary)[])(
    '%s is what the start wrote',
    (field) => {
      const expected =
        field in SUMMARY_ONLY
          ? SUMMARY_ONLY[field as keyof typeof SUMMARY_ONLY](task)
          : task[field as keyof Task];
      // A list entry says null where a Task leaves a field out (a pull task's callbackUrl).
      expect(
        summary[field] ?? undefined,
        `the list reads ${field} from visibility: write it at start (src/tasks/start-options.ts) and read it in toTaskSummary (src/tasks/views.ts)`,
      ).toEqual(expected ?? undefined);
    },
  );
});

describe('the search attributes', () => {
  const names = (attributes: unknown) =>
    (attributes as { key: { name: string } }[]).map(({ key }) => key.name).sort();
  const every = ALL_SEARCH_ATTRIBUTES.map(({ name }) => name).sort();

  it.each(Object.entries(EVERY_FIELD))('are all written at the start of %s', (_, body) => {
    expect(
      names(started(body).options.typedSearchAttributes),
      'a search attribute the start does not write: write it in taskSearchAttributes (src/tasks/start-options.ts)',
    ).toEqual(every);
  });

  it("are all written at the start of a schedule's occurrence, but ExecuteAt, which the occurrence writes", () => {
    const { spec, fingerprint } = started(EVERY_FIELD['a callback task']);
    const action = actionOf('orders', 'nightly', spec, fingerprint, 'q', definitionOf({ every: '1h' }));
    expect(names(action.typedSearchAttributes)).toEqual(
      every.filter((name) => name !== SEARCH_ATTRIBUTES.executeAt.name),
    );
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
