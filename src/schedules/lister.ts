/**
 * What visibility says about many schedules at once: pages of one owner's (or every owner's)
 * schedules, how many an owner has, every schedule's run counts for the metrics, and the statuses of
 * a schedule's recent occurrences. Every query is built by `VisibilityQuery` (src/tasks/query.ts).
 * Visibility is eventually consistent: a schedule created a moment ago may be missing from a page or
 * a count for about a second.
 */
import type { ListSchedulesQuery, Schedule, ScheduleList, ScheduleSummary } from '../contract/schedules.js';
import { ApiError, ErrorCode } from '../errors/catalog.js';
import { SEARCH_ATTRIBUTES } from '../shared/constants.js';
import { parseWorkflowId } from '../shared/owner.js';
import { TASK_STATUSES, type TaskStatus } from '../shared/task.js';
import { decodePageToken, encodePageToken } from '../tasks/page-token.js';
import { VisibilityQuery } from '../tasks/query.js';
import type { TemporalCalls } from '../temporal/calls.js';
import type { Described } from './views.js';
import { toSchedule, toScheduleSummary } from './views.js';

/** How many schedules of a page are described at once. */
const DESCRIBE_CONCURRENCY = 8;

/** Temporal's run counts of the schedules of one task type, summed (see `ScheduleLister.tally`). */
export interface TypeTally {
  schedules: number;
  paused: number;
  /** Runs not started because the previous occurrence was still running (the overlap policy). */
  skippedByOverlap: number;
  /** Runs missed by more than the catch-up window (after an outage), dropped. */
  missedCatchupWindow: number;
}

export interface ScheduleTally {
  byTaskType: Map<string, TypeTally>;
  /** More schedules existed than were described. */
  truncated: boolean;
}

export class ScheduleLister {
  constructor(
    private readonly temporal: TemporalCalls,
    private readonly read: (owner: string, scheduleId: string) => Promise<Described>,
    private readonly sharedQueue: string,
  ) {}

  private async page(query: string, pageSize: number, token: Uint8Array | undefined) {
    return this.temporal.call(() =>
      this.temporal.client.workflowService.listSchedules({
        namespace: this.temporal.namespace,
        maximumPageSize: pageSize,
        query,
        ...(token && { nextPageToken: token }),
      }),
    );
  }

  /** How many schedules `owner` has, counting up to `enough`. */
  async countOf(owner: string, enough: number): Promise<number> {
    const query = VisibilityQuery.schedules().is('owner', owner).toString();
    let count = 0;
    let token: Uint8Array | undefined;
    do {
      const response = await this.page(query, Math.min(1000, enough + 1), token);
      count += response.schedules?.length ?? 0;
      token = nonEmpty(response.nextPageToken);
    } while (token && count < enough);
    return count;
  }

  /**
   * One page of schedules by id, each described afresh (the list row has neither the definition as
   * given nor the task); `paused` and `taskType` filter in visibility and again on the fresh state.
   */
  async list(owner: string | undefined, request: Omit<ListSchedulesQuery, 'owner'>): Promise<ScheduleList> {
    let query = VisibilityQuery.schedules();
    if (owner !== undefined) query = query.is('owner', owner);
    if (request.taskType) query = query.is('taskType', request.taskType);
    if (request.paused !== undefined) query = query.flag('schedulePaused', request.paused);
    const text = query.toString();
    const token = request.pageToken ? decodePageToken(text, request.pageToken) : undefined;
    const response = await this.page(text, request.pageSize ?? 50, token);
    const ids = (response.schedules ?? []).map((entry) => parseWorkflowId(entry.scheduleId ?? ''));
    const summaries: (ScheduleSummary | undefined)[] = [];
    for (let i = 0; i < ids.length; i += DESCRIBE_CONCURRENCY) {
      summaries.push(
        ...(await Promise.all(
          ids.slice(i, i + DESCRIBE_CONCURRENCY).map((id) => this.summary(id.owner, id.taskId)),
        )),
      );
    }
    const schedules = summaries.filter(
      (summary): summary is ScheduleSummary =>
        summary !== undefined &&
        (request.paused === undefined || summary.paused === request.paused) &&
        (request.taskType === undefined || summary.taskType === request.taskType),
    );
    const following = nonEmpty(response.nextPageToken);
    return { schedules, nextPageToken: following ? encodePageToken(text, following) : null };
  }

  /**
   * Every owner's schedules, up to `max` of them, described (Temporal keeps the run counts on the
   * schedule, not in visibility): their counts summed by task type.
   */
  async tally(max: number): Promise<ScheduleTally> {
    const query = VisibilityQuery.schedules().toString();
    const ids: { owner: string; taskId: string }[] = [];
    let token: Uint8Array | undefined;
    do {
      const response = await this.page(query, Math.min(1000, max + 1 - ids.length), token);
      ids.push(...(response.schedules ?? []).map((entry) => parseWorkflowId(entry.scheduleId ?? '')));
      token = nonEmpty(response.nextPageToken);
    } while (token && ids.length <= max);
    const truncated = ids.length > max;
    const byTaskType = new Map<string, TypeTally>();
    for (let i = 0; i < Math.min(ids.length, max); i += DESCRIBE_CONCURRENCY) {
      const batch = ids.slice(i, Math.min(i + DESCRIBE_CONCURRENCY, max));
      const schedules = await Promise.all(batch.map((id) => this.schedule(id.owner, id.taskId)));
      for (const schedule of schedules) {
        if (!schedule) continue;
        const sum = byTaskType.get(schedule.task.taskType) ?? {
          schedules: 0,
          paused: 0,
          skippedByOverlap: 0,
          missedCatchupWindow: 0,
        };
        sum.schedules += 1;
        sum.paused += schedule.paused ? 1 : 0;
        sum.skippedByOverlap += schedule.skippedByOverlap;
        sum.missedCatchupWindow += schedule.missedCatchupWindow;
        byTaskType.set(schedule.task.taskType, sum);
      }
    }
    return { byTaskType, truncated };
  }

  /** A listed schedule's summary; undefined when it has gone (deleted since) or is not ours. */
  private async summary(owner: string, scheduleId: string): Promise<ScheduleSummary | undefined> {
    const schedule = await this.schedule(owner, scheduleId);
    return schedule && toScheduleSummary(schedule);
  }

  /** A listed schedule (without its occurrences' statuses); undefined when it has gone or is not ours. */
  private async schedule(owner: string, scheduleId: string): Promise<Schedule | undefined> {
    try {
      return toSchedule(await this.read(owner, scheduleId), owner, new Map());
    } catch (err) {
      if (err instanceof ApiError && err.code === ErrorCode.ScheduleNotFound) return undefined;
      throw err;
    }
  }

  /** The task status of each of these occurrences' workflows, as visibility lists them now. */
  async taskStatuses(workflowIds: readonly string[]): Promise<Map<string, TaskStatus>> {
    const statuses = new Map<string, TaskStatus>();
    if (workflowIds.length === 0) return statuses;
    const query = VisibilityQuery.tasks(this.sharedQueue).oneOf('workflowId', workflowIds).toString();
    const newest = new Map<string, number>();
    await this.temporal.call(async () => {
      for await (const execution of this.temporal.client.workflow.list({
        query,
        pageSize: workflowIds.length,
      })) {
        const status = execution.typedSearchAttributes.get(SEARCH_ATTRIBUTES.taskStatus);
        const started = execution.startTime.getTime();
        if (!status || !(TASK_STATUSES as readonly string[]).includes(status)) continue;
        // A replayed occurrence has several runs: the newest says.
        if ((newest.get(execution.workflowId) ?? -Infinity) > started) continue;
        newest.set(execution.workflowId, started);
        statuses.set(execution.workflowId, status as TaskStatus);
      }
    });
    return statuses;
  }
}

function nonEmpty(token: Uint8Array | null | undefined): Uint8Array | undefined {
  return token && token.length > 0 ? token : undefined;
}
