/**
 * The SDK's wire types against the committed OpenAPI document (docs/openapi.json, generated from
 * the API's TypeBox schemas), both ways: every property of the document's schema is in the SDK's
 * type and every property of the type is in the schema, with the same required/optional and
 * nullable shape; the status enum and error codes are the same lists.
 *
 * Why checked, not generated: the SDK's types are not the wire's (times are `Date`, payload numbers
 * may be `bigint`, `executeAt` takes a `Date` or a string), so generated types would need the same
 * hand-written mapping on top. Instead each `Shape<T>` literal below is checked by the compiler
 * against the type (a missing or extra key, or a wrong required/nullable mark, does not compile)
 * and at run time against the document (a property added to or removed from the API fails here).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  ATTEMPT_OUTCOMES,
  KNOWN_ERROR_CODES,
  TASK_STATUSES,
  DelayedTasksClient,
  OVERLAP_POLICIES,
  type TaskAttempt,
  type BackfillScheduleRequest,
  type CreateScheduleRequest,
  type CreateTaskRequest,
  type ListSchedulesRequest,
  type Schedule,
  type ScheduleOccurrence,
  type SchedulePage,
  type ScheduleSummary,
  type ScheduleTask,
  type ScheduleTaskRequest,
  type UpdateScheduleRequest,
  type ErrorBody,
  type ErrorDetail,
  type ListTasksRequest,
  type ReplayRequest,
  type RescheduleRequest,
  type Task,
  type TaskError,
  type TaskPage,
  type TaskSummary,
} from '../../src/index.js';
import { TIME_FIELDS, ATTEMPT_TIME_FIELDS } from '../../src/types.js';

/** Per property: required or optional, and whether null is allowed. */
type Mark = 'required' | 'optional' | 'required, nullable' | 'optional, nullable';

/** What an object literal must say of each property of `T`: every key, no other, the right mark. */
type Shape<T> = {
  [
    K in keyof T
  ]-?: `${object extends Pick<T, K> ? 'optional' : 'required'}${null extends T[K] ? ', nullable' : ''}`;
};

interface Schema {
  type?: string;
  required?: string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  enum?: unknown[];
  nullable?: boolean;
  format?: string;
}

interface Operation {
  parameters?: Array<{ name: string; in: string; required?: boolean }>;
  requestBody?: { content: { 'application/json': { schema: Schema } } };
  responses: Record<string, { content?: { 'application/json'?: { schema: Schema } } }>;
}

const document = JSON.parse(
  readFileSync(new URL('../../../../docs/openapi.json', import.meta.url), 'utf8'),
) as { paths: Record<string, Record<string, Operation>> };

function operation(method: string, path: string): Operation {
  const found = document.paths[path]?.[method];
  if (!found) throw new Error(`docs/openapi.json has no ${method.toUpperCase()} ${path}`);
  return found;
}

function response(method: string, path: string, status: string): Schema {
  const schema = operation(method, path).responses[status]?.content?.['application/json']?.schema;
  if (!schema) throw new Error(`no JSON ${status} answer for ${method.toUpperCase()} ${path}`);
  return schema;
}

function requestBody(method: string, path: string): Schema {
  const schema = operation(method, path).requestBody?.content['application/json'].schema;
  if (!schema) throw new Error(`no JSON body for ${method.toUpperCase()} ${path}`);
  return schema;
}

function property(schema: Schema, ...names: string[]): Schema {
  return names.reduce((at, name) => {
    const next = at.properties?.[name];
    if (!next) throw new Error(`no property ${names.join('.')}`);
    return next;
  }, schema);
}

const nullable = (schema: Schema): boolean =>
  schema.nullable === true ||
  schema.type === 'null' ||
  (schema.anyOf ?? []).some((option) => option.nullable === true || option.type === 'null');

/** The document's marks, in the Shape<T> vocabulary. */
function marks(schema: Schema): Record<string, Mark> {
  const required = new Set(schema.required ?? []);
  return Object.fromEntries(
    Object.entries(schema.properties ?? {}).map(([name, child]) => [
      name,
      `${required.has(name) ? 'required' : 'optional'}${nullable(child) ? ', nullable' : ''}` as Mark,
    ]),
  );
}

const enumOf = (schema: Schema): unknown[] =>
  (schema.anyOf ?? [schema]).flatMap((option) => option.enum ?? []);

const timesOf = (schema: Schema): string[] =>
  Object.entries(schema.properties ?? {})
    .filter(([, child]) => [child, ...(child.anyOf ?? [])].some((option) => option.format === 'date-time'))
    .map(([name]) => name)
    .sort();

const TASK = '/api/v1/tasks/{taskId}';
const task = response('get', TASK, '200');
const list = response('get', '/api/v1/tasks', '200');
const errorBody = response('get', TASK, '404');

const taskShape: Shape<Task> = {
  taskId: 'required',
  owner: 'required',
  taskType: 'required',
  status: 'required',
  executeAt: 'required',
  createdAt: 'required',
  payload: 'optional',
  payloadVersion: 'required',
  callbackUrl: 'optional',
  delivery: 'optional',
  lease: 'optional',
  maxRetries: 'required',
  timeoutMs: 'required',
  traceId: 'required, nullable',
  priority: 'required',
  attempts: 'required',
  lastError: 'required, nullable',
  nextAttemptAt: 'required, nullable',
  firedAt: 'required, nullable',
  completedAt: 'required, nullable',
  attemptHistory: 'optional',
};
const taskAsRead: Record<string, Mark> = { ...taskShape, payload: 'required' };

const SCHEDULE = '/api/v1/schedules/{scheduleId}';
const schedule = response('get', SCHEDULE, '200');
const scheduleList = response('get', '/api/v1/schedules', '200');

const scheduleTaskShape: Shape<ScheduleTask> = {
  taskType: 'required',
  payload: 'optional',
  payloadVersion: 'required',
  callbackUrl: 'optional',
  delivery: 'optional',
  maxRetries: 'required',
  timeoutMs: 'required',
  traceId: 'required, nullable',
  priority: 'required',
};

const scheduleShape: Shape<Schedule> = {
  scheduleId: 'required',
  owner: 'required',
  cron: 'required, nullable',
  every: 'required, nullable',
  phase: 'required, nullable',
  timeZone: 'required',
  startAt: 'required, nullable',
  endAt: 'required, nullable',
  maxRuns: 'required, nullable',
  remainingRuns: 'required, nullable',
  jitter: 'required, nullable',
  overlap: 'required',
  catchupWindow: 'required',
  pauseOnFailure: 'required',
  paused: 'required',
  note: 'required, nullable',
  task: 'required',
  nextRunTimes: 'required',
  recentOccurrences: 'required',
  occurrencesStarted: 'required',
  skippedByOverlap: 'required',
  missedCatchupWindow: 'required',
  createdAt: 'required',
  updatedAt: 'required, nullable',
};

const scheduleSpecShape = {
  cron: 'optional',
  every: 'optional',
  phase: 'optional',
  timeZone: 'optional',
  startAt: 'optional',
  endAt: 'optional',
  maxRuns: 'optional',
  jitter: 'optional',
  overlap: 'optional',
  catchupWindow: 'optional',
  pauseOnFailure: 'optional',
} as const;

const scheduleCases: Array<{ name: string; schema: () => Schema; sdk: Record<string, Mark> }> = [
  { name: 'Schedule (GET /api/v1/schedules/{scheduleId})', schema: () => schedule, sdk: scheduleShape },
  {
    name: 'Schedule (the create answer, 201, and the write verbs)',
    schema: () => response('post', '/api/v1/schedules', '201'),
    sdk: scheduleShape,
  },
  {
    // The GET answer always has them; the write verbs' answer omits them for a write-only key.
    name: 'ScheduleTask (the write verbs answer)',
    schema: () => property(response('post', `${SCHEDULE}/pause`, '200'), 'task'),
    sdk: scheduleTaskShape,
  },
  {
    name: 'ScheduleOccurrence (recentOccurrences items)',
    schema: () => property(schedule, 'recentOccurrences').items ?? {},
    sdk: {
      taskId: 'required',
      scheduledAt: 'required',
      startedAt: 'required',
      status: 'required, nullable',
    } satisfies Shape<ScheduleOccurrence>,
  },
  {
    name: 'ScheduleSummary (list items)',
    schema: () => property(scheduleList, 'schedules').items ?? {},
    sdk: {
      scheduleId: 'required',
      owner: 'required',
      taskType: 'required',
      cron: 'required, nullable',
      every: 'required, nullable',
      timeZone: 'required',
      paused: 'required',
      note: 'required, nullable',
      nextRunTime: 'required, nullable',
    } satisfies Shape<ScheduleSummary>,
  },
  {
    name: 'SchedulePage (the list answer)',
    schema: () => scheduleList,
    sdk: { schedules: 'required', nextPageToken: 'required, nullable' } satisfies Shape<SchedulePage>,
  },
  {
    name: 'CreateScheduleRequest (the create body)',
    schema: () => requestBody('post', '/api/v1/schedules'),
    sdk: {
      scheduleId: 'required',
      ...scheduleSpecShape,
      paused: 'optional',
      note: 'optional',
      task: 'required',
    } satisfies Shape<CreateScheduleRequest>,
  },
  {
    name: 'ScheduleTaskRequest (the create body task)',
    schema: () => property(requestBody('post', '/api/v1/schedules'), 'task'),
    sdk: {
      taskType: 'required',
      payload: 'required',
      callbackUrl: 'optional',
      delivery: 'optional',
      maxRetries: 'optional',
      timeoutMs: 'optional',
      payloadVersion: 'optional',
      traceId: 'optional',
      priority: 'optional',
    } satisfies Shape<ScheduleTaskRequest>,
  },
  {
    name: 'UpdateScheduleRequest (the update body)',
    schema: () => requestBody('patch', SCHEDULE),
    sdk: {
      ...scheduleSpecShape,
      phase: 'optional, nullable',
      startAt: 'optional, nullable',
      endAt: 'optional, nullable',
      maxRuns: 'optional, nullable',
      jitter: 'optional, nullable',
      task: 'optional',
    } satisfies Shape<UpdateScheduleRequest>,
  },
  {
    name: 'BackfillScheduleRequest (the backfill body)',
    schema: () => requestBody('post', `${SCHEDULE}/backfill`),
    sdk: {
      startAt: 'required',
      endAt: 'required',
      overlap: 'optional',
    } satisfies Shape<BackfillScheduleRequest>,
  },
  {
    name: 'the pause and resume body: an optional note',
    schema: () => requestBody('post', `${SCHEDULE}/pause`),
    sdk: { note: 'optional' },
  },
  {
    name: 'the trigger body: an optional overlap',
    schema: () => requestBody('post', `${SCHEDULE}/trigger`),
    sdk: { overlap: 'optional' },
  },
];

const cases: Array<{ name: string; schema: () => Schema; sdk: Record<string, Mark> }> = [
  ...scheduleCases,
  // A get and a create always carry the payload and callback URL that the SDK's `Task` marks
  // optional: the same type answers cancel, reschedule and replay, which omit them for a key
  // without `tasks:read`.
  { name: 'Task (GET /api/v1/tasks/{taskId})', schema: () => task, sdk: taskAsRead },
  {
    name: 'Task (the create answer, 201)',
    schema: () => response('post', '/api/v1/tasks', '201'),
    sdk: taskAsRead,
  },
  {
    name: 'Task (cancel, reschedule and replay answers)',
    schema: () => response('post', `${TASK}/cancel`, '200'),
    sdk: taskShape,
  },
  {
    name: 'TaskError (lastError)',
    schema: () => property(task, 'lastError'),
    sdk: { message: 'required', statusCode: 'optional' } satisfies Shape<TaskError>,
  },
  {
    name: 'TaskAttempt (attemptHistory items)',
    schema: () => property(task, 'attemptHistory').items ?? {},
    sdk: {
      attempt: 'required',
      startedAt: 'required',
      finishedAt: 'required',
      outcome: 'required',
      statusCode: 'optional',
      error: 'optional',
    } satisfies Shape<TaskAttempt>,
  },
  {
    name: 'TaskSummary (list items)',
    schema: () => property(list, 'tasks').items ?? {},
    sdk: {
      taskId: 'required',
      owner: 'required',
      taskType: 'required',
      status: 'required',
      executeAt: 'required, nullable',
      createdAt: 'required, nullable',
      callbackUrl: 'required, nullable',
      deliveryMode: 'optional',
      priority: 'required, nullable',
      attempts: 'required',
      lastError: 'required, nullable',
      completedAt: 'required, nullable',
    } satisfies Shape<TaskSummary>,
  },
  {
    name: 'TaskPage (the list answer)',
    schema: () => list,
    sdk: { tasks: 'required', nextPageToken: 'required, nullable' } satisfies Shape<TaskPage>,
  },
  {
    name: 'CreateTaskRequest (the create body)',
    schema: () => requestBody('post', '/api/v1/tasks'),
    sdk: {
      taskType: 'required',
      payload: 'required',
      delaySeconds: 'optional',
      executeAt: 'optional',
      callbackUrl: 'optional',
      delivery: 'optional',
      taskId: 'optional',
      maxRetries: 'optional',
      timeoutMs: 'optional',
      payloadVersion: 'optional',
      traceId: 'optional',
      priority: 'optional',
    } satisfies Shape<CreateTaskRequest>,
  },
  {
    // A union (exactly one of the two): its keys, both optional across the union.
    name: 'RescheduleRequest (the reschedule body)',
    schema: () => requestBody('post', `${TASK}/reschedule`),
    sdk: { delaySeconds: 'optional', executeAt: 'optional' } satisfies Record<keyof RescheduleRequest, Mark>,
  },
  {
    name: 'ReplayRequest (the replay body)',
    schema: () => requestBody('post', `${TASK}/replay`),
    sdk: {
      payload: 'optional',
      payloadVersion: 'optional',
      maxRetries: 'optional',
      delaySeconds: 'optional',
      executeAt: 'optional',
    } satisfies Shape<ReplayRequest>,
  },
  {
    name: 'ErrorBody (every error answer)',
    schema: () => errorBody,
    sdk: { error: 'required' } satisfies Shape<ErrorBody>,
  },
  {
    name: "ErrorBody['error']",
    schema: () => property(errorBody, 'error'),
    sdk: { code: 'required', message: 'required', details: 'optional' } satisfies Shape<ErrorBody['error']>,
  },
  {
    name: 'ErrorDetail (error.details items)',
    schema: () => property(errorBody, 'error', 'details').items ?? {},
    sdk: { field: 'required', reason: 'required' } satisfies Shape<ErrorDetail>,
  },
];

describe('wire types match docs/openapi.json', () => {
  it.each(cases)('$name', ({ schema, sdk }) => {
    expect(sdk).toEqual(marks(schema()));
  });

  it('ListTasksRequest has exactly the list query parameters, all optional', () => {
    const sdk = {
      status: 'optional',
      taskType: 'optional',
      idPrefix: 'optional',
      owner: 'optional',
      dueAfter: 'optional',
      dueBefore: 'optional',
      pageSize: 'optional',
      pageToken: 'optional',
    } satisfies Shape<ListTasksRequest>;
    const parameters = (operation('get', '/api/v1/tasks').parameters ?? []).filter((p) => p.in === 'query');
    expect(sdk).toEqual(
      Object.fromEntries(parameters.map((p) => [p.name, p.required ? 'required' : 'optional'])),
    );
  });

  it('ListSchedulesRequest has exactly the list query parameters, all optional', () => {
    const sdk = {
      taskType: 'optional',
      paused: 'optional',
      owner: 'optional',
      pageSize: 'optional',
      pageToken: 'optional',
    } satisfies Shape<ListSchedulesRequest>;
    const parameters = (operation('get', '/api/v1/schedules').parameters ?? []).filter(
      (p) => p.in === 'query',
    );
    expect(sdk).toEqual(
      Object.fromEntries(parameters.map((p) => [p.name, p.required ? 'required' : 'optional'])),
    );
  });

  it('OVERLAP_POLICIES is the overlap enum', () => {
    expect([...OVERLAP_POLICIES].sort()).toEqual(enumOf(property(schedule, 'overlap')).sort());
  });

  it('the schedule verbs are the operations of /api/v1/schedules', () => {
    const verbs = Object.entries(document.paths)
      .filter(([path]) => path.startsWith('/api/v1/schedules'))
      .flatMap(([, methods]) =>
        Object.values(methods).map((op) => (op as { operationId?: string }).operationId),
      );
    expect(verbs.sort()).toEqual(
      [
        'createSchedule',
        'getSchedule',
        'listSchedules',
        'updateSchedule',
        'pauseSchedule',
        'resumeSchedule',
        'triggerSchedule',
        'backfillSchedule',
        'deleteSchedule',
      ].sort(),
    );
    for (const verb of verbs)
      expect(typeof DelayedTasksClient.prototype[verb as keyof DelayedTasksClient]).toBe('function');
  });

  it('TASK_STATUSES is the status enum, everywhere the document gives it', () => {
    expect([...TASK_STATUSES].sort()).toEqual(enumOf(property(task, 'status')).sort());
    expect([...TASK_STATUSES].sort()).toEqual(
      enumOf(property(list, 'tasks').items?.properties?.status ?? {}).sort(),
    );
  });

  it('KNOWN_ERROR_CODES are the error codes, plus the SDK-only UNKNOWN (an answer that is not the envelope)', () => {
    const codes = KNOWN_ERROR_CODES.filter((code) => code !== 'UNKNOWN');
    expect([...codes].sort()).toEqual(enumOf(property(errorBody, 'error', 'code')).sort());
    expect(KNOWN_ERROR_CODES).toContain('UNKNOWN');
  });

  it('ATTEMPT_OUTCOMES is the attempt outcome enum', () => {
    const attempt = property(task, 'attemptHistory').items ?? {};
    expect([...ATTEMPT_OUTCOMES].sort()).toEqual(enumOf(property(attempt, 'outcome')).sort());
  });

  it('the times the SDK turns into Dates are the date-time properties', () => {
    expect([...TIME_FIELDS].sort()).toEqual(timesOf(task));
    expect(
      timesOf(property(list, 'tasks').items ?? {}).every((name) =>
        (TIME_FIELDS as readonly string[]).includes(name),
      ),
    ).toBe(true);
    expect([...ATTEMPT_TIME_FIELDS].sort()).toEqual(timesOf(property(task, 'attemptHistory').items ?? {}));
  });
});
