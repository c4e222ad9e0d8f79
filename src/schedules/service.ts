/**
 * The schedule domain, as the API uses it: recurring tasks on Temporal Schedules. Each occurrence
 * is one task: the schedule's action starts the delayed-task workflow with the input a one-shot
 * create builds (TaskCommands.prepare: the same checks), marked as this schedule's. A schedule's
 * Temporal id is derived from its owner and id as a task's is, so every call addresses one owner's
 * schedules and another owner's schedule is as absent as a missing one.
 */
import {
  ScheduleAlreadyRunning,
  ScheduleNotFoundError,
  type ScheduleDescription,
  type ScheduleHandle,
} from '@temporalio/client';
import { mayAccess, type ListAccess, type TaskAccess } from '../auth/principal.js';
import type {
  BackfillScheduleBody,
  CreateScheduleBody,
  ListSchedulesQuery,
  Schedule,
  ScheduleList,
  TriggerScheduleBody,
  UpdateScheduleBody,
} from '../contract/schedules.js';
import {
  ApiError,
  ErrorCode,
  invalidArgument,
  PayloadSchemaError,
  scheduleNotFound,
} from '../errors/catalog.js';
import { SEARCH_ATTRIBUTES } from '../shared/constants.js';
import type { TaskStatus } from '../shared/task.js';
import { parseRfc3339 } from '../tasks/input.js';
import { TaskService, type TaskServiceOptions } from '../tasks/service.js';
import { workflowQueueOf } from '../shared/task-queues.js';
import { TemporalCalls } from '../temporal/calls.js';
import { grpcCode, toApiError } from '../temporal/errors.js';
import {
  actionOf,
  definitionOf,
  scheduleFingerprint,
  scheduleSearchAttributes,
  temporalScheduleId,
  timingOf,
  updatedDefinition,
  type Definition,
} from './input.js';
import { ScheduleLister, type ScheduleTally } from './lister.js';
import { OwnerLimit } from './owner-limit.js';
import { checkTiming, OVERLAP_TO_TEMPORAL, type CheckedTiming } from './spec.js';
import { describedOf, recentOccurrences, toSchedule, type Described } from './views.js';

/**
 * The note a pause or resume without one records. Temporal reads an empty note as "no pause or
 * resume in this patch", so one must always be sent or the call silently changes nothing.
 */
const DEFAULT_NOTES = { pause: 'paused through the API', resume: 'resumed through the API' } as const;

/** What the schedule domain needs: what the task domain does (the same checks, the same Temporal). */
export type ScheduleServiceOptions = TaskServiceOptions;

export interface CreateScheduleResult {
  schedule: Schedule;
  /** False when an identical schedule of this id existed (an idempotent repeat). */
  created: boolean;
}

const GRPC_INVALID_ARGUMENT = 3;
const GRPC_NOT_FOUND = 5;

export class ScheduleService {
  private readonly temporal: TemporalCalls;
  private readonly tasks: TaskService;
  private readonly lister: ScheduleLister;
  private readonly ownerLimit = new OwnerLimit();
  private readonly now: () => number;

  constructor(
    private readonly options: ScheduleServiceOptions,
    /** The task domain whose checks each occurrence's task passes; built from `options` when absent. */
    tasks?: TaskService,
  ) {
    this.tasks = tasks ?? new TaskService(options);
    this.now = options.now ?? Date.now;
    this.temporal = new TemporalCalls({
      connection: options.connection,
      namespace: options.config.temporal.namespace,
      rpcTimeoutMs: options.config.temporal.rpcTimeoutMs,
      ...(options.dataConverter && { dataConverter: options.dataConverter }),
    });
    this.lister = new ScheduleLister(
      this.temporal,
      (owner, id) => this.read(owner, id),
      options.config.temporal.taskQueue,
    );
  }

  private get limits() {
    return this.options.config.schedules;
  }

  /** Runs a Temporal call on schedule `scheduleId` under the deadline, its errors mapped. */
  private async call<T>(scheduleId: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await this.temporal.bounded(fn);
    } catch (err) {
      if (err instanceof ScheduleAlreadyRunning) throw err;
      if (err instanceof ScheduleNotFoundError || grpcCode(err) === GRPC_NOT_FOUND)
        throw scheduleNotFound(scheduleId);
      if (grpcCode(err) === GRPC_INVALID_ARGUMENT) {
        throw new ApiError(
          ErrorCode.InvalidArgument,
          `Temporal refused the schedule: ${(err as Error).message}`,
          undefined,
          {
            cause: err,
          },
        );
      }
      throw toApiError(err);
    }
  }

  private handle(owner: string, scheduleId: string): ScheduleHandle {
    return this.temporal.client.schedule.getHandle(temporalScheduleId(owner, scheduleId));
  }

  /** One of `owner`'s schedules as Temporal describes it; 404 for any other (another owner's, one made by hand). */
  private async read(owner: string, scheduleId: string): Promise<Described> {
    const description = await this.call(scheduleId, () => this.handle(owner, scheduleId).describe());
    const described = describedOf(description);
    if (!described || description.typedSearchAttributes.get(SEARCH_ATTRIBUTES.owner) !== owner) {
      throw scheduleNotFound(scheduleId);
    }
    return described;
  }

  /** A schedule the key may act on: its owner's, of a task type and callback host the key may use. */
  private async readFor(access: TaskAccess, scheduleId: string): Promise<Described> {
    const described = await this.read(access.owner, scheduleId);
    // A schedule of a task type or callback host the key may not reach answers as an absent one: a
    // 403 naming its type would tell a limited key that it exists (as tasks answer: readableTask).
    if (!mayAccess(access, described.spec)) throw scheduleNotFound(scheduleId);
    return described;
  }

  private async view(owner: string, described: Described): Promise<Schedule> {
    return toSchedule(described, owner, await this.statuses(described.description));
  }

  /** Statuses of the recent occurrences, from visibility (absent while it catches up). */
  private async statuses(description: ScheduleDescription): Promise<Map<string, TaskStatus>> {
    const ids = recentOccurrences(description).map((occurrence) => occurrence.workflowId);
    return this.lister.taskStatuses(ids);
  }

  /** The task of each occurrence, checked as a one-shot create is, and where it runs. */
  private async prepareTask(access: TaskAccess, scheduleId: string, task: CreateScheduleBody['task']) {
    // The id and due time are placeholders: each occurrence takes its own (src/shared/schedule.ts).
    const prepared = await this.tasks.commands
      .prepare(access, { ...task, taskId: scheduleId, delaySeconds: 0 })
      .catch((err: unknown) => {
        throw underTask(err);
      });
    const queue = workflowQueueOf(prepared.spec, this.options.config.temporal.taskQueue);
    return { ...prepared, queue };
  }

  async create(access: TaskAccess, body: CreateScheduleBody): Promise<CreateScheduleResult> {
    const { scheduleId, task, paused: _paused, note: _note, ...timing } = body;
    const checked = checkTiming(timing, this.limits, this.now());
    const definition = definitionOf(timing);
    const prepared = await this.prepareTask(access, scheduleId, task);
    const fingerprint = scheduleFingerprint(body, definition, prepared.fingerprint);
    // The count and the create, one owner's at a time in this process (src/schedules/owner-limit.ts).
    return this.ownerLimit.serialized(access.owner, () =>
      this.createCounted(access, body, checked, definition, prepared, fingerprint),
    );
  }

  private async createCounted(
    access: TaskAccess,
    body: CreateScheduleBody,
    checked: CheckedTiming,
    definition: Definition,
    prepared: Awaited<ReturnType<ScheduleService['prepareTask']>>,
    fingerprint: string,
  ): Promise<CreateScheduleResult> {
    const { scheduleId, task, paused, note } = body;
    const { owner } = access;
    const listed = await this.lister.idsOf(owner, this.limits.maxPerOwner);
    if (!listed.has(scheduleId) && this.ownerLimit.count(owner, listed) >= this.limits.maxPerOwner) {
      // A repeat of an existing schedule is answered as one; only a new schedule is refused.
      const existing = await this.existing(access, scheduleId, fingerprint);
      if (existing) return { schedule: existing, created: false };
      throw new ApiError(
        ErrorCode.ScheduleLimitExceeded,
        `owner ${owner} has ${this.limits.maxPerOwner} schedules, the most allowed (SCHEDULES_MAX_PER_OWNER)`,
      );
    }
    try {
      await this.call(scheduleId, () =>
        this.temporal.client.schedule.create({
          scheduleId: temporalScheduleId(owner, scheduleId),
          spec: checked.spec,
          action: actionOf(
            owner,
            scheduleId,
            prepared.spec,
            prepared.fingerprint,
            prepared.queue,
            definition,
          ),
          policies: checked.policies,
          state: {
            paused: paused ?? false,
            ...(note !== undefined && { note }),
            ...(checked.remainingActions !== undefined && { remainingActions: checked.remainingActions }),
          },
          memo: { specHash: fingerprint },
          typedSearchAttributes: scheduleSearchAttributes(owner, task.taskType),
        }),
      );
      this.ownerLimit.created(owner, scheduleId);
    } catch (err) {
      if (!(err instanceof ScheduleAlreadyRunning)) throw err;
      const existing = await this.existing(access, scheduleId, fingerprint);
      if (!existing) throw scheduleNotFound(scheduleId); // deleted in between
      return { schedule: existing, created: false };
    }
    return { schedule: await this.view(owner, await this.read(owner, scheduleId)), created: true };
  }

  /** The existing schedule of this id if it was created with the same body; 409 if with another. */
  private async existing(
    access: TaskAccess,
    scheduleId: string,
    fingerprint: string,
  ): Promise<Schedule | undefined> {
    let described: Described;
    try {
      described = await this.read(access.owner, scheduleId);
    } catch (err) {
      if (err instanceof ApiError && err.code === ErrorCode.ScheduleNotFound) return undefined;
      throw err;
    }
    if (described.description.memo?.specHash !== fingerprint) {
      throw new ApiError(
        ErrorCode.ScheduleConflict,
        `schedule ${scheduleId} exists with a different specification`,
      );
    }
    return this.view(access.owner, described);
  }

  async get(access: TaskAccess, scheduleId: string): Promise<Schedule> {
    return this.view(access.owner, await this.readFor(access, scheduleId));
  }

  /** A page of the schedules `access` may see: exactly those a get of each would answer. */
  list(access: ListAccess, query: Omit<ListSchedulesQuery, 'owner'>): Promise<ScheduleList> {
    return this.lister.list(access, query);
  }

  /** Every owner's schedules (up to `max`): Temporal's run counts summed by task type, for the metrics. */
  tally(max: number): Promise<ScheduleTally> {
    return this.lister.tally(max);
  }

  async update(access: TaskAccess, scheduleId: string, body: UpdateScheduleBody): Promise<Schedule> {
    const current = await this.readFor(access, scheduleId);
    const definition = updatedDefinition(current.definition, body);
    const checked = checkTiming(timingOf(definition), this.limits, this.now());
    const prepared = body.task
      ? await this.prepareTask(access, scheduleId, body.task)
      : {
          spec: current.spec,
          fingerprint: current.description.action.memo?.specHash as string,
          queue: current.description.action.taskQueue,
        };
    const { owner } = access;
    const action = actionOf(
      owner,
      scheduleId,
      prepared.spec,
      prepared.fingerprint,
      prepared.queue,
      definition,
    );
    const remaining = maxRunsChanged(current.definition, definition)
      ? checked.remainingActions
      : current.description.state.remainingActions;
    await this.call(scheduleId, () =>
      this.handle(owner, scheduleId).update((previous) => ({
        spec: checked.spec,
        action,
        policies: checked.policies,
        state: {
          paused: previous.state.paused,
          ...(previous.state.note !== undefined && { note: previous.state.note }),
          ...(remaining !== undefined && { remainingActions: remaining }),
        },
        typedSearchAttributes: scheduleSearchAttributes(owner, prepared.spec.taskType),
      })),
    );
    return this.get(access, scheduleId);
  }

  async pause(access: TaskAccess, scheduleId: string, note: string | undefined): Promise<Schedule> {
    await this.readFor(access, scheduleId);
    await this.call(scheduleId, () =>
      this.handle(access.owner, scheduleId).pause(note || DEFAULT_NOTES.pause),
    );
    return this.get(access, scheduleId);
  }

  async resume(access: TaskAccess, scheduleId: string, note: string | undefined): Promise<Schedule> {
    await this.readFor(access, scheduleId);
    await this.call(scheduleId, () =>
      this.handle(access.owner, scheduleId).unpause(note || DEFAULT_NOTES.resume),
    );
    return this.get(access, scheduleId);
  }

  async trigger(access: TaskAccess, scheduleId: string, body: TriggerScheduleBody): Promise<Schedule> {
    await this.readFor(access, scheduleId);
    const overlap = OVERLAP_TO_TEMPORAL[body.overlap ?? 'allowAll'];
    await this.call(scheduleId, () => this.handle(access.owner, scheduleId).trigger(overlap));
    return this.get(access, scheduleId);
  }

  /**
   * Starts the occurrences of a past range. `charge` is told how many run times the range holds
   * before any starts (the rate limit counts each as a request) and may refuse them all.
   */
  async backfill(
    access: TaskAccess,
    scheduleId: string,
    body: BackfillScheduleBody,
    charge: (runs: number) => Promise<void> = async () => undefined,
  ): Promise<Schedule> {
    const current = await this.readFor(access, scheduleId);
    const checked = checkTiming(timingOf({ ...current.definition, endAt: null }), this.limits, this.now());
    const [start, end, runs] = backfillRange(body, this.now(), checked, this.limits.maxBackfillRuns);
    await charge(runs);
    const overlap = OVERLAP_TO_TEMPORAL[body.overlap ?? 'allowAll'];
    await this.call(scheduleId, () =>
      this.handle(access.owner, scheduleId).backfill({ start: new Date(start), end: new Date(end), overlap }),
    );
    return this.get(access, scheduleId);
  }

  async delete(access: TaskAccess, scheduleId: string): Promise<Schedule> {
    const current = await this.readFor(access, scheduleId);
    const schedule = toSchedule(current, access.owner, new Map());
    await this.call(scheduleId, () => this.handle(access.owner, scheduleId).delete());
    this.ownerLimit.deleted(access.owner, scheduleId);
    return schedule;
  }
}

/** A refusal of the task's fields, naming them as the schedule's body does (`task.callbackUrl`). */
function underTask(err: unknown): unknown {
  if (!(err instanceof ApiError) || !err.details?.length || err.status >= 500) return err;
  const details = err.details.map((detail) => ({ ...detail, field: `task.${detail.field}` }));
  const first = details[0]!;
  const refused = new ApiError(err.code, `${first.field} ${first.reason}`, details, { cause: err });
  return err instanceof PayloadSchemaError
    ? Object.assign(
        new PayloadSchemaError(
          err.taskType,
          err.payloadVersion,
          err.versionDeclared,
          refused.message,
          details,
        ),
        { cause: err },
      )
    : refused;
}

function maxRunsChanged(before: Definition, after: Definition): boolean {
  return before.maxRuns !== after.maxRuns;
}

/** A backfill's range and its number of run times: in order, not in the future, at most `maxRuns` runs. */
function backfillRange(
  body: BackfillScheduleBody,
  now: number,
  timing: CheckedTiming,
  maxRuns: number,
): [number, number, number] {
  const start = parseRfc3339(body.startAt);
  const end = parseRfc3339(body.endAt);
  const rfc = 'must be an RFC 3339 time with an offset (Z or +08:00)';
  if (start === undefined) throw invalidArgument('startAt', rfc);
  if (end === undefined) throw invalidArgument('endAt', rfc);
  if (end <= start) throw invalidArgument('endAt', 'must be after startAt');
  if (end > now) throw invalidArgument('endAt', 'is in the future; a backfill starts past runs only');
  // Temporal takes the run times from start (inclusive) to end (inclusive).
  const runs = timing.runsBetween(start - 1, end, maxRuns);
  if (runs.length > maxRuns) {
    throw invalidArgument(
      'endAt',
      `the range holds more than ${maxRuns} runs (SCHEDULE_MAX_BACKFILL_RUNS); backfill it in parts`,
    );
  }
  return [start, end, runs.length];
}
