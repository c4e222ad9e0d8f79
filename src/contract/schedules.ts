/**
 * Schemas of the schedule resource and its routes: a recurring task on a Temporal Schedule. Each
 * occurrence is one task (the create body's `task`, started as a one-shot create would start it).
 * Types come from `Static<>`, so they cannot drift.
 */
import Type, { type Static } from 'typebox';
import {
  CATCHUP_WINDOW,
  DURATION_PATTERN,
  SCHEDULE_ID_PATTERN,
  SCHEDULE_NEXT_RUNS,
  SCHEDULE_NOTE_MAX_LENGTH,
  SCHEDULE_RECENT_OCCURRENCES,
} from '../shared/limits.js';
import { OWNER_PATTERN } from '../shared/owner.js';
import {
  ClientTimeSchema,
  NullableTimestampSchema,
  pageSchema,
  pagingQueryProperties,
  TimestampSchema,
} from './common.js';
import { CreateTaskBodySchema, TaskSchema, TaskStatusSchema, TaskTypeSchema, type Task } from './tasks.js';

const ScheduleIdSchema = Type.String({
  pattern: SCHEDULE_ID_PATTERN,
  description:
    "Client-chosen id, unique per owner; each occurrence's task id is `<scheduleId>-<nominal time>`, e.g. `daily-report-2026-12-04T18:00:00Z`",
  examples: ['daily-report'],
});

const duration = (description: string, examples: string[]) =>
  Type.String({ pattern: DURATION_PATTERN, minLength: 2, maxLength: 32, description, examples });

const CronSchema = Type.String({
  minLength: 1,
  maxLength: 128,
  description:
    'Five fields (minute hour day-of-month month day-of-week; `*`, lists, ranges and steps) or `@yearly`, `@monthly`, `@weekly`, `@daily`, `@hourly`, read in timeZone. Exactly one of cron or every.',
  examples: ['0 2 * * *'],
});
const EverySchema = duration(
  'A fixed interval (`30s`, `15m`, `1h30m`, `1d`), aligned to the Unix epoch plus phase; not less than the configured minimum. Exactly one of cron or every.',
  ['15m'],
);
const PhaseSchema = duration(
  'Only with every: offset of each run from the interval boundary, less than every',
  ['5m'],
);
const TimeZoneSchema = Type.String({
  minLength: 1,
  maxLength: 64,
  description:
    'IANA time zone the cron fields are read in (default `UTC`). A local time a DST change skips does not run that day; one it repeats runs twice, at both instants (docs/api.md#schedules)',
  examples: ['Asia/Shanghai'],
});
const JitterSchema = duration(
  'Each run starts at a random delay up to this after its nominal time (spreads schedules due at the same instant); the callback still names the nominal time',
  ['30s'],
);
const MaxRunsSchema = Type.Integer({
  minimum: 1,
  maximum: 1_000_000,
  description: 'Run at most this many times (trigger and backfill do not count), then stop firing',
});

export const OverlapSchema = Type.Union(
  [
    Type.Literal('skip'),
    Type.Literal('bufferOne'),
    Type.Literal('bufferAll'),
    Type.Literal('allowAll'),
    Type.Literal('cancelOther'),
  ],
  {
    description:
      'When a run is due while the previous occurrence is still running (waiting or retrying its callback): `skip` it (default), `bufferOne` (start it when the previous ends; at most one waits), `bufferAll` (start each in turn), `allowAll` (start it now), `cancelOther` (cancel the previous occurrence, then start)',
  },
);
export type OverlapPolicy = Static<typeof OverlapSchema>;

const CatchupWindowSchema = duration(
  `After an outage of the service or Temporal, runs missed by at most this long still start (each once, subject to overlap); older ones are dropped. Default ${CATCHUP_WINDOW.default}, from ${CATCHUP_WINDOW.min} s to ${CATCHUP_WINDOW.max / 86_400} days`,
  ['1h'],
);
const PauseOnFailureSchema = Type.Boolean({
  description: 'Pause the schedule when an occurrence fails (is dead-lettered). Default false',
});
const NoteSchema = Type.String({
  maxLength: SCHEDULE_NOTE_MAX_LENGTH,
  description: 'Why the schedule was paused or resumed; shown with its paused state',
  examples: ['receiver under maintenance until 14:00'],
});

/** What each occurrence runs: a create body without its id and due time (an occurrence runs at its run time). */
export const ScheduleTaskSchema = Type.Omit(CreateTaskBodySchema, ['taskId', 'delaySeconds', 'executeAt'], {
  additionalProperties: false,
  description:
    "The task each occurrence starts, checked as a one-shot create is (payload schema per type and version, callback URL guard, per-type caps, the key's task types and hosts)",
  examples: [
    {
      taskType: 'report.generate',
      payload: { report: 'daily-sales' },
      callbackUrl: 'https://reports.internal/callbacks/generate',
      maxRetries: 5,
    },
  ],
});
export type ScheduleTask = Static<typeof ScheduleTaskSchema>;

/** Fields of a schedule's timing and policies, shared by create and update. */
const specProperties = {
  cron: CronSchema,
  every: EverySchema,
  phase: PhaseSchema,
  timeZone: TimeZoneSchema,
  startAt: Type.Union([ClientTimeSchema], {
    description: 'No run before this time (RFC 3339 with an offset)',
  }),
  endAt: Type.Union([ClientTimeSchema], {
    description:
      'No run after this time (RFC 3339 with an offset); after startAt, and the spec must fire before it',
  }),
  maxRuns: MaxRunsSchema,
  jitter: JitterSchema,
  overlap: OverlapSchema,
  catchupWindow: CatchupWindowSchema,
  pauseOnFailure: PauseOnFailureSchema,
};

export const CreateScheduleBodySchema = Type.Object(
  {
    scheduleId: ScheduleIdSchema,
    cron: Type.Optional(specProperties.cron),
    every: Type.Optional(specProperties.every),
    phase: Type.Optional(specProperties.phase),
    timeZone: Type.Optional(specProperties.timeZone),
    startAt: Type.Optional(specProperties.startAt),
    endAt: Type.Optional(specProperties.endAt),
    maxRuns: Type.Optional(specProperties.maxRuns),
    jitter: Type.Optional(specProperties.jitter),
    overlap: Type.Optional(specProperties.overlap),
    catchupWindow: Type.Optional(specProperties.catchupWindow),
    pauseOnFailure: Type.Optional(specProperties.pauseOnFailure),
    paused: Type.Optional(Type.Boolean({ description: 'Create it paused (default false)' })),
    note: Type.Optional(NoteSchema),
    task: ScheduleTaskSchema,
  },
  {
    additionalProperties: false,
    description:
      'Exactly one of cron or every. Idempotent on scheduleId per owner: the same body answers 200 with the schedule, a different one 409 SCHEDULE_CONFLICT.',
    examples: [
      {
        scheduleId: 'daily-report',
        cron: '0 2 * * *',
        timeZone: 'Asia/Shanghai',
        task: {
          taskType: 'report.generate',
          payload: { report: 'daily-sales' },
          callbackUrl: 'https://reports.internal/callbacks/generate',
          maxRetries: 5,
        },
      },
    ],
  },
);
export type CreateScheduleBody = Static<typeof CreateScheduleBodySchema>;

/**
 * An update: the fields given replace the schedule's (`task` as a whole); `null` clears an optional
 * bound. Giving cron clears every and phase, giving every clears cron. The result is validated as a
 * create is before it takes effect; a refused update changes nothing.
 */
export const UpdateScheduleBodySchema = Type.Object(
  {
    cron: Type.Optional(specProperties.cron),
    every: Type.Optional(specProperties.every),
    phase: Type.Optional(Type.Union([specProperties.phase, Type.Null()])),
    timeZone: Type.Optional(specProperties.timeZone),
    startAt: Type.Optional(Type.Union([specProperties.startAt, Type.Null()])),
    endAt: Type.Optional(Type.Union([specProperties.endAt, Type.Null()])),
    maxRuns: Type.Optional(Type.Union([specProperties.maxRuns, Type.Null()])),
    jitter: Type.Optional(Type.Union([specProperties.jitter, Type.Null()])),
    overlap: Type.Optional(specProperties.overlap),
    catchupWindow: Type.Optional(specProperties.catchupWindow),
    pauseOnFailure: Type.Optional(specProperties.pauseOnFailure),
    task: Type.Optional(ScheduleTaskSchema),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    description:
      "Fields given replace the schedule's (task as a whole); null clears phase, startAt, endAt, maxRuns or jitter. cron clears every and phase; every clears cron. Validated as a create before it takes effect.",
    examples: [{ cron: '30 2 * * *' }],
  },
);
export type UpdateScheduleBody = Static<typeof UpdateScheduleBodySchema>;

/** One past occurrence: a task like any other, with its outcome so far. */
export const ScheduleOccurrenceSchema = Type.Object({
  taskId: Type.String({ description: 'The task this occurrence is (GET /api/v1/tasks/{taskId})' }),
  scheduledAt: Type.Union([TimestampSchema], { description: 'Nominal time the occurrence runs for' }),
  startedAt: Type.Union([TimestampSchema], { description: 'When Temporal started it (after jitter)' }),
  status: Type.Union([TaskStatusSchema, Type.Null()], {
    description: "The task's status as listed; null while visibility has not caught up with its start",
  }),
});
export type ScheduleOccurrence = Static<typeof ScheduleOccurrenceSchema>;

/** Fields a schedule's task is created with that a Task shows too. */
type SharedTaskField = Extract<keyof ScheduleTask, keyof Task>;

/**
 * The fields of a Task that a schedule's task shows: every field the schedule's task is created with
 * that a Task shows too. A new task field that both have does not compile until it is listed here.
 */
export const SCHEDULE_TASK_VIEW_FIELDS = [
  'taskType',
  'payload',
  'payloadVersion',
  'callbackUrl',
  'delivery',
  'maxRetries',
  'timeoutMs',
  'traceId',
  'priority',
] as const satisfies readonly SharedTaskField[];
type UnshownField = Exclude<SharedTaskField, (typeof SCHEDULE_TASK_VIEW_FIELDS)[number]>;
/** Fails to compile, naming the field, when a shared field is missing from the list above. */
export const SCHEDULE_TASK_VIEW_IS_WHOLE: [UnshownField] extends [never] ? true : UnshownField = true;

/** The task every occurrence runs, defaults applied (as a Task shows them). */
const ScheduleTaskViewSchema = Type.Pick(TaskSchema, SCHEDULE_TASK_VIEW_FIELDS);

export const SCHEDULE_EXAMPLE = {
  scheduleId: 'daily-report',
  owner: 'reports',
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
  task: {
    taskType: 'report.generate',
    payload: { report: 'daily-sales' },
    payloadVersion: 1,
    callbackUrl: 'https://reports.internal/callbacks/generate',
    maxRetries: 5,
    timeoutMs: 30000,
    traceId: null,
    priority: 3,
  },
  nextRunTimes: ['2026-12-04T18:00:00.000Z', '2026-12-05T18:00:00.000Z'],
  recentOccurrences: [
    {
      taskId: 'daily-report-2026-12-03T18:00:00Z',
      scheduledAt: '2026-12-03T18:00:00.000Z',
      startedAt: '2026-12-03T18:00:00.012Z',
      status: 'SUCCEEDED',
    },
  ],
  occurrencesStarted: 1,
  skippedByOverlap: 0,
  missedCatchupWindow: 0,
  createdAt: '2026-12-02T10:00:00.000Z',
  updatedAt: null,
};

export const ScheduleSchema = Type.Object(
  {
    scheduleId: ScheduleIdSchema,
    owner: Type.String({ pattern: OWNER_PATTERN, description: 'Owner of the API key that created it' }),
    cron: Type.Union([Type.String(), Type.Null()], { description: 'As given; null for an interval' }),
    every: Type.Union([Type.String(), Type.Null()], { description: 'As given; null for a cron' }),
    phase: Type.Union([Type.String(), Type.Null()]),
    timeZone: Type.String(),
    startAt: NullableTimestampSchema,
    endAt: NullableTimestampSchema,
    maxRuns: Type.Union([Type.Integer(), Type.Null()]),
    remainingRuns: Type.Union([Type.Integer(), Type.Null()], {
      description: 'Runs left under maxRuns; null without a limit',
    }),
    jitter: Type.Union([Type.String(), Type.Null()]),
    overlap: OverlapSchema,
    catchupWindow: Type.String(),
    pauseOnFailure: Type.Boolean(),
    paused: Type.Boolean(),
    note: Type.Union([Type.String(), Type.Null()], { description: 'Note of the last pause or resume' }),
    task: ScheduleTaskViewSchema,
    nextRunTimes: Type.Array(TimestampSchema, {
      maxItems: SCHEDULE_NEXT_RUNS,
      description: `The next ${SCHEDULE_NEXT_RUNS} nominal run times as Temporal computes them (before jitter); listed while paused too (none starts until resumed); empty after the last run`,
    }),
    recentOccurrences: Type.Array(ScheduleOccurrenceSchema, {
      maxItems: SCHEDULE_RECENT_OCCURRENCES,
      description: `The newest ${SCHEDULE_RECENT_OCCURRENCES} occurrences Temporal started, oldest first`,
    }),
    occurrencesStarted: Type.Integer({ description: "Occurrences started so far (Temporal's count)" }),
    skippedByOverlap: Type.Integer({ description: 'Runs not started because of the overlap policy' }),
    missedCatchupWindow: Type.Integer({
      description: 'Runs dropped after an outage: older than catchupWindow',
    }),
    createdAt: TimestampSchema,
    updatedAt: NullableTimestampSchema,
  },
  { $id: 'Schedule', examples: [SCHEDULE_EXAMPLE] },
);
export type Schedule = Static<typeof ScheduleSchema>;

/**
 * The answer of a create, update, pause, resume, trigger or backfill: the schedule, but without its
 * task's payload and callback URL for a key without schedules:read (a write-only key learns nothing
 * it did not send).
 */
export const ScheduleActionAnswerSchema = Type.Object(
  {
    ...ScheduleSchema.properties,
    task: Type.Object({
      ...ScheduleTaskViewSchema.properties,
      payload: Type.Optional(TaskSchema.properties.payload),
      callbackUrl: Type.Optional(Type.String()),
    }),
  },
  {
    $id: 'ScheduleActionAnswer',
    description: 'A schedule; task.payload and task.callbackUrl are absent for a key without schedules:read.',
  },
);
export type ScheduleActionAnswer = Static<typeof ScheduleActionAnswerSchema>;

export const ScheduleParamsSchema = Type.Object({ scheduleId: ScheduleIdSchema });

/** Query of the single-schedule routes: an admin key may address another owner's schedule. */
export const ScheduleQuerySchema = Type.Object(
  {
    owner: Type.Optional(
      Type.String({
        pattern: OWNER_PATTERN,
        description: "Admin keys only: act on this owner's schedule (default: the key's own owner)",
      }),
    ),
  },
  { additionalProperties: false },
);
export type ScheduleQuery = Static<typeof ScheduleQuerySchema>;

/** A list entry: enough to choose a schedule; fetch it for its task, runs and occurrences. */
export const ScheduleSummarySchema = Type.Object({
  scheduleId: Type.String(),
  owner: Type.String(),
  taskType: Type.String(),
  cron: Type.Union([Type.String(), Type.Null()]),
  every: Type.Union([Type.String(), Type.Null()]),
  timeZone: Type.String(),
  paused: Type.Boolean(),
  note: Type.Union([Type.String(), Type.Null()]),
  nextRunTime: Type.Union([TimestampSchema, Type.Null()], {
    description: 'The next nominal run time (also while paused); null after the last run',
  }),
});
export type ScheduleSummary = Static<typeof ScheduleSummarySchema>;

export const ListSchedulesQuerySchema = Type.Object(
  {
    taskType: Type.Optional(TaskTypeSchema),
    paused: Type.Optional(
      Type.Boolean({ description: 'Only paused (true) or only active (false) schedules' }),
    ),
    ...pagingQueryProperties('schedules'),
  },
  { additionalProperties: false },
);
export type ListSchedulesQuery = Static<typeof ListSchedulesQuerySchema>;

export const ScheduleListSchema = pageSchema('schedules', ScheduleSummarySchema);
export type ScheduleList = Static<typeof ScheduleListSchema>;

export const ScheduleNoteBodySchema = Type.Object(
  { note: Type.Optional(NoteSchema) },
  { additionalProperties: false, examples: [{ note: 'receiver under maintenance until 14:00' }] },
);
export type ScheduleNoteBody = Static<typeof ScheduleNoteBodySchema>;

export const TriggerScheduleBodySchema = Type.Object(
  {
    overlap: Type.Optional(
      Type.Union([OverlapSchema], {
        description: 'Overlap policy of this one run (default: allowAll, it starts even if one is running)',
      }),
    ),
  },
  { additionalProperties: false, description: 'Starts one occurrence now, nominal time now' },
);
export type TriggerScheduleBody = Static<typeof TriggerScheduleBodySchema>;

export const BackfillScheduleBodySchema = Type.Object(
  {
    startAt: Type.Union([ClientTimeSchema], {
      description: 'From this time, exclusive (RFC 3339 with an offset)',
    }),
    endAt: Type.Union([ClientTimeSchema], { description: 'To this time, inclusive; not in the future' }),
    overlap: Type.Optional(
      Type.Union([OverlapSchema], {
        description: 'Overlap policy of the backfilled runs (default: allowAll)',
      }),
    ),
  },
  {
    additionalProperties: false,
    description:
      'Starts one occurrence for each run time of the spec in the range, as if they had run then (nominal times in the past); the configured maximum number of runs per backfill applies',
    examples: [{ startAt: '2026-12-01T00:00:00Z', endAt: '2026-12-03T00:00:00Z' }],
  },
);
export type BackfillScheduleBody = Static<typeof BackfillScheduleBodySchema>;
