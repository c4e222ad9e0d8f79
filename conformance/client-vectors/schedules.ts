/**
 * Vectors of the schedule verbs (createSchedule ... deleteSchedule): the request each SDK sends, how
 * it reads the schedule it gets back (times as times, nextRunTimes, recentOccurrences, paused and
 * note, policies), and the schedule error codes.
 */
import { ok, apiError, noBody, jsonBody, unavailable, refused, REASONS } from './common.js';

const PATH = '/api/v1/schedules';

const task = {
  taskType: 'report.generate',
  payload: { report: 'daily-sales' },
  callbackUrl: 'http://127.0.0.1:9/cb',
  maxRetries: 5,
};

export function schedule(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    scheduleId: 'daily-report',
    owner: 'default',
    cron: '0 2 * * *',
    every: null,
    phase: null,
    timeZone: 'Asia/Shanghai',
    startAt: null,
    endAt: null,
    maxRuns: null,
    remainingRuns: null,
    jitter: null,
    overlap: 'skip',
    catchupWindow: '1h',
    pauseOnFailure: false,
    paused: false,
    note: null,
    task: { ...task, payloadVersion: 1, timeoutMs: 30000, traceId: null, priority: 3 },
    nextRunTimes: ['2026-12-04T18:00:00.000Z', '2026-12-05T18:00:00.000Z'],
    recentOccurrences: [
      {
        taskId: 'daily-report-2026-12-03T18:00:00Z',
        scheduledAt: '2026-12-03T18:00:00.000Z',
        startedAt: '2026-12-03T18:00:00.012Z',
        status: 'SUCCEEDED',
      },
      {
        taskId: 'daily-report-2026-12-04T18:00:00Z',
        scheduledAt: '2026-12-04T18:00:00.000Z',
        startedAt: '2026-12-04T18:00:00.020Z',
        status: null,
      },
    ],
    occurrencesStarted: 2,
    skippedByOverlap: 0,
    missedCatchupWindow: 0,
    createdAt: '2026-12-02T10:00:00.000Z',
    updatedAt: null,
    ...overrides,
  };
}

function summary(scheduleId: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    scheduleId,
    owner: 'default',
    taskType: 'report.generate',
    cron: null,
    every: '15m',
    timeZone: 'UTC',
    paused: true,
    note: 'receiver down',
    nextRunTime: null,
    ...overrides,
  };
}

const patch = (path: string, body: unknown) => ({ ...jsonBody(path, body), method: 'PATCH' });

export const schedules = [
  {
    name: 'createSchedule with a cron and a time zone',
    operation: 'createSchedule',
    options: { apiKey: 'dts_k1_secret' },
    input: { scheduleId: 'daily-report', cron: '0 2 * * *', timeZone: 'Asia/Shanghai', task },
    requests: [
      {
        ...jsonBody(PATH, { scheduleId: 'daily-report', cron: '0 2 * * *', timeZone: 'Asia/Shanghai', task }),
        headers: { authorization: 'Bearer dts_k1_secret', 'content-type': 'application/json' },
      },
    ],
    responses: [ok(schedule(), 201, { location: '/api/v1/schedules/daily-report' })],
    expect: { result: { created: true, schedule: schedule() } },
  },
  {
    name: 'createSchedule with an interval, every policy and bounds; the same one again answers created false',
    operation: 'createSchedule',
    input: {
      scheduleId: 'sync.every-15m',
      every: '15m',
      phase: '5m',
      startAt: { $time: '2026-12-04T08:00:00+08:00' },
      endAt: { $time: '2027-01-01T00:00:00Z' },
      maxRuns: 100,
      jitter: '30s',
      overlap: 'bufferOne',
      catchupWindow: '2h',
      pauseOnFailure: true,
      paused: true,
      note: 'starts after the launch',
      task: { ...task, payloadVersion: 2, timeoutMs: 5000, traceId: 'trace-1', priority: 1 },
    },
    requests: [
      jsonBody(PATH, {
        scheduleId: 'sync.every-15m',
        every: '15m',
        phase: '5m',
        startAt: '2026-12-04T00:00:00.000Z',
        endAt: '2027-01-01T00:00:00.000Z',
        maxRuns: 100,
        jitter: '30s',
        overlap: 'bufferOne',
        catchupWindow: '2h',
        pauseOnFailure: true,
        paused: true,
        note: 'starts after the launch',
        task: { ...task, payloadVersion: 2, timeoutMs: 5000, traceId: 'trace-1', priority: 1 },
      }),
    ],
    responses: [
      ok(
        schedule({
          scheduleId: 'sync.every-15m',
          cron: null,
          every: '15m',
          phase: '5m',
          timeZone: 'UTC',
          startAt: '2026-12-04T00:00:00.000Z',
          endAt: '2027-01-01T00:00:00.000Z',
          maxRuns: 100,
          remainingRuns: 100,
          jitter: '30s',
          overlap: 'bufferOne',
          catchupWindow: '2h',
          pauseOnFailure: true,
          paused: true,
          note: 'starts after the launch',
          nextRunTimes: [],
          recentOccurrences: [],
          occurrencesStarted: 0,
        }),
      ),
    ],
    expect: {
      result: {
        created: false,
        schedule: {
          scheduleId: 'sync.every-15m',
          cron: null,
          every: '15m',
          phase: '5m',
          startAt: '2026-12-04T00:00:00.000Z',
          endAt: '2027-01-01T00:00:00.000Z',
          maxRuns: 100,
          remainingRuns: 100,
          jitter: '30s',
          overlap: 'bufferOne',
          catchupWindow: '2h',
          pauseOnFailure: true,
          paused: true,
          note: 'starts after the launch',
          nextRunTimes: [],
          recentOccurrences: [],
        },
      },
    },
  },
  {
    name: 'createSchedule retried after 503 sends the same body',
    operation: 'createSchedule',
    input: { scheduleId: 'daily-report', cron: '0 2 * * *', task },
    requests: [
      jsonBody(PATH, { scheduleId: 'daily-report', cron: '0 2 * * *', task }),
      jsonBody(PATH, { scheduleId: 'daily-report', cron: '0 2 * * *', task }),
    ],
    responses: [unavailable(), ok(schedule(), 201)],
    expect: { result: { created: true, schedule: { scheduleId: 'daily-report' } } },
  },
  {
    name: 'createSchedule: SCHEDULE_CONFLICT for the same id with another spec',
    operation: 'createSchedule',
    input: { scheduleId: 'daily-report', cron: '0 3 * * *', task },
    requests: [jsonBody(PATH, { scheduleId: 'daily-report', cron: '0 3 * * *', task })],
    responses: [apiError(409, 'SCHEDULE_CONFLICT', 'a schedule with this id exists with another spec')],
    expect: { error: { code: 'SCHEDULE_CONFLICT', status: 409 } },
  },
  {
    name: 'createSchedule: SCHEDULE_LIMIT_EXCEEDED is not retried',
    operation: 'createSchedule',
    input: { scheduleId: 'one-too-many', every: '1h', task },
    requests: [jsonBody(PATH, { scheduleId: 'one-too-many', every: '1h', task })],
    responses: [apiError(409, 'SCHEDULE_LIMIT_EXCEEDED', 'the owner has 100 schedules')],
    expect: { error: { code: 'SCHEDULE_LIMIT_EXCEEDED', status: 409 } },
  },
  {
    name: 'createSchedule: INVALID_ARGUMENT names the field',
    operation: 'createSchedule',
    input: { scheduleId: 'bad-zone', cron: '0 2 * * *', timeZone: 'Mars/Olympus', task },
    requests: [jsonBody(PATH, { scheduleId: 'bad-zone', cron: '0 2 * * *', timeZone: 'Mars/Olympus', task })],
    responses: [
      apiError(400, 'INVALID_ARGUMENT', 'invalid schedule', [
        { field: 'timeZone', reason: 'is not an IANA time zone' },
      ]),
    ],
    expect: { error: { code: 'INVALID_ARGUMENT', status: 400, details: [{ field: 'timeZone' }] } },
  },
  refused(
    'createSchedule',
    "createSchedule: an unsafe integer in the task's payload is refused before sending",
    {
      scheduleId: 'daily-report',
      every: '1h',
      task: { ...task, payload: { id: { $int: '9007199254740993' } } },
    },
    'task.payload.id',
    REASONS.unsafeInteger,
  ),
  refused(
    'updateSchedule',
    "updateSchedule: NaN in the new task's payload is refused before sending",
    { scheduleId: 'daily-report', task: { ...task, payload: { items: [1, { $float: 'NaN' }] } } },
    'task.payload.items.1',
    REASONS.notFinite,
  ),
  {
    name: 'getSchedule reads next run times, recent occurrences and a null status',
    operation: 'getSchedule',
    options: { apiKey: 'dts_k1_secret' },
    input: { scheduleId: 'daily-report' },
    requests: [
      { ...noBody('GET', `${PATH}/daily-report`), headers: { authorization: 'Bearer dts_k1_secret' } },
    ],
    responses: [ok(schedule({ updatedAt: '2026-12-03T09:00:00.000Z' }))],
    expect: { result: schedule({ updatedAt: '2026-12-03T09:00:00.000Z' }) },
  },
  {
    name: 'getSchedule: SCHEDULE_NOT_FOUND',
    operation: 'getSchedule',
    input: { scheduleId: 'nope' },
    requests: [noBody('GET', `${PATH}/nope`)],
    responses: [apiError(404, 'SCHEDULE_NOT_FOUND', 'no schedule with id nope')],
    expect: { error: { code: 'SCHEDULE_NOT_FOUND', status: 404 } },
  },
  {
    name: 'listSchedules with every filter',
    operation: 'listSchedules',
    input: { taskType: 'report.generate', paused: true, owner: 'reports', pageSize: 2, pageToken: 'abc=' },
    requests: [
      noBody('GET', PATH, {
        taskType: 'report.generate',
        paused: 'true',
        owner: 'reports',
        pageSize: '2',
        pageToken: 'abc=',
      }),
    ],
    responses: [
      ok({
        schedules: [
          summary('a'),
          summary('b', {
            cron: '@daily',
            every: null,
            paused: false,
            note: null,
            nextRunTime: '2026-12-05T00:00:00.000Z',
          }),
        ],
        nextPageToken: 'next+/=',
      }),
    ],
    expect: {
      result: {
        schedules: [
          summary('a'),
          summary('b', {
            cron: '@daily',
            every: null,
            paused: false,
            note: null,
            nextRunTime: '2026-12-05T00:00:00.000Z',
          }),
        ],
        nextPageToken: 'next+/=',
      },
    },
  },
  {
    name: 'listSchedules paused false is sent, no other filter',
    operation: 'listSchedules',
    input: { paused: false },
    requests: [noBody('GET', PATH, { paused: 'false' })],
    responses: [ok({ schedules: [], nextPageToken: null })],
    expect: { result: { schedules: [], nextPageToken: null } },
  },
  {
    name: 'updateSchedule sends only the fields given',
    operation: 'updateSchedule',
    input: { scheduleId: 'daily-report', cron: '30 2 * * *', endAt: { $time: '2027-06-30T23:59:59+08:00' } },
    requests: [patch(`${PATH}/daily-report`, { cron: '30 2 * * *', endAt: '2027-06-30T15:59:59.000Z' })],
    responses: [ok(schedule({ cron: '30 2 * * *', endAt: '2027-06-30T15:59:59.000Z' }))],
    expect: { result: { cron: '30 2 * * *', endAt: '2027-06-30T15:59:59.000Z' } },
  },
  {
    name: 'updateSchedule replaces the task and clears the jitter',
    operation: 'updateSchedule',
    input: { scheduleId: 'daily-report', jitter: null, task: { ...task, priority: 5 } },
    requests: [patch(`${PATH}/daily-report`, { jitter: null, task: { ...task, priority: 5 } })],
    responses: [
      ok(schedule({ task: { ...task, payloadVersion: 1, timeoutMs: 30000, traceId: null, priority: 5 } })),
    ],
    expect: { result: { jitter: null, task: { priority: 5 } } },
  },
  {
    name: 'pauseSchedule with a note',
    operation: 'pauseSchedule',
    input: { scheduleId: 'daily-report', note: 'receiver under maintenance until 14:00' },
    requests: [jsonBody(`${PATH}/daily-report/pause`, { note: 'receiver under maintenance until 14:00' })],
    responses: [
      ok(schedule({ paused: true, note: 'receiver under maintenance until 14:00', nextRunTimes: [] })),
    ],
    expect: { result: { paused: true, note: 'receiver under maintenance until 14:00', nextRunTimes: [] } },
  },
  {
    name: 'pauseSchedule without a note sends an empty object',
    operation: 'pauseSchedule',
    input: { scheduleId: 'daily-report' },
    requests: [jsonBody(`${PATH}/daily-report/pause`, {})],
    responses: [ok(schedule({ paused: true, nextRunTimes: [] }))],
    expect: { result: { paused: true, note: null } },
  },
  {
    name: 'resumeSchedule with a note',
    operation: 'resumeSchedule',
    input: { scheduleId: 'daily-report', note: 'back' },
    requests: [jsonBody(`${PATH}/daily-report/resume`, { note: 'back' })],
    responses: [ok(schedule({ note: 'back' }))],
    expect: { result: { paused: false, note: 'back' } },
  },
  {
    name: 'resumeSchedule: SCHEDULE_NOT_FOUND',
    operation: 'resumeSchedule',
    input: { scheduleId: 'gone' },
    requests: [jsonBody(`${PATH}/gone/resume`, {})],
    responses: [apiError(404, 'SCHEDULE_NOT_FOUND', 'no schedule with id gone')],
    expect: { error: { code: 'SCHEDULE_NOT_FOUND', status: 404 } },
  },
  {
    name: 'triggerSchedule with no overlap sends an empty object',
    operation: 'triggerSchedule',
    input: { scheduleId: 'daily-report' },
    requests: [jsonBody(`${PATH}/daily-report/trigger`, {})],
    responses: [ok(schedule({ occurrencesStarted: 3 }))],
    expect: { result: { scheduleId: 'daily-report', occurrencesStarted: 3 } },
  },
  {
    name: 'triggerSchedule with an overlap policy',
    operation: 'triggerSchedule',
    input: { scheduleId: 'daily-report', overlap: 'skip' },
    requests: [jsonBody(`${PATH}/daily-report/trigger`, { overlap: 'skip' })],
    responses: [ok(schedule())],
    expect: { result: { scheduleId: 'daily-report' } },
  },
  {
    name: 'backfillSchedule sends the range as UTC times',
    operation: 'backfillSchedule',
    input: {
      scheduleId: 'daily-report',
      startAt: { $time: '2026-12-01T00:00:00+08:00' },
      endAt: { $time: '2026-12-03T00:00:00Z' },
      overlap: 'bufferAll',
    },
    requests: [
      jsonBody(`${PATH}/daily-report/backfill`, {
        startAt: '2026-11-30T16:00:00.000Z',
        endAt: '2026-12-03T00:00:00.000Z',
        overlap: 'bufferAll',
      }),
    ],
    responses: [ok(schedule())],
    expect: { result: { scheduleId: 'daily-report' } },
  },
  {
    name: 'deleteSchedule sends no body and returns nothing',
    operation: 'deleteSchedule',
    input: { scheduleId: 'daily-report' },
    requests: [noBody('DELETE', `${PATH}/daily-report`)],
    responses: [{ status: 204 }],
    expect: { result: null },
  },
  {
    name: 'deleteSchedule: SCHEDULE_NOT_FOUND',
    operation: 'deleteSchedule',
    input: { scheduleId: 'daily-report' },
    requests: [noBody('DELETE', `${PATH}/daily-report`)],
    responses: [apiError(404, 'SCHEDULE_NOT_FOUND', 'no schedule with id daily-report')],
    expect: { error: { code: 'SCHEDULE_NOT_FOUND', status: 404 } },
  },
];
