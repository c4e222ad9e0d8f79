/**
 * What visibility says about many schedules at once: pages of one owner's (or every owner's)
 * schedules, how many an owner has, every schedule's run counts for the metrics, and the statuses of
 * a schedule's recent occurrences. Every query is built by `VisibilityQuery` (src/tasks/query.ts).
 * Visibility is eventually consistent: a schedule created a moment ago may be missing from a page or
 * a count for about a second.
 */
import type { ListSchedulesQuery, Schedule, ScheduleList, ScheduleSummary } from '../contract/schedules.js';
import { visibleTasks, type ListAccess } from '../auth/principal.js';
import { ApiError, ErrorCode } from '../errors/catalog.js';
import { SEARCH_ATTRIBUTES } from '../shared/constants.js';
import { parseWorkflowId } from '../shared/owner.js';
import { TASK_STATUSES, type TaskStatus } from '../shared/task.js';
import { decodePageToken, encodePageToken } from '../tasks/page-token.js';
import { VisibilityQuery } from '../tasks/query.js';
import type { TemporalCalls } from '../temporal/calls.js';
import type { Described } from './views.js';
import { toSchedule } from './views.js';
import { rowOf } from './list-row.js';

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

  /** The ids of `owner`'s schedules as visibility lists them, up to `enough` of them (or one more). */
  async idsOf(owner: string, enough: number): Promise<Set<string>> {
    const query = VisibilityQuery.schedules().is('owner', owner).toString();
    const ids = new Set<string>();
    let token: Uint8Array | undefined;
    do {
      const response = await this.page(query, Math.min(1000, enough + 1), token);
      for (const entry of response.schedules ?? []) ids.add(parseWorkflowId(entry.scheduleId ?? '').taskId);
      token = nonEmpty(response.nextPageToken);
    } while (token && ids.size < enough);
    return ids;
  }

  /**
   * One page of schedules by id, read from the list call alone (src/schedules/list-row.ts), shown
   * by the rule of a get (`visibleTasks`: the key's task types and callback hosts). Only a key limited
   * to callback hosts needs more: each row's task, described at most DESCRIBE_CONCURRENCY at a time;
   * a row whose describe fails is hidden from that key, as a task whose callback URL is unknown.
   */
  async list(access: ListAccess, request: Omit<ListSchedulesQuery, 'owner'>): Promise<ScheduleList> {
    let query = VisibilityQuery.schedules();
    if (access.owner !== undefined) query = query.is('owner', access.owner);
    if (request.taskType) query = query.is('taskType', request.taskType);
    if (request.paused !== undefined) query = query.flag('schedulePaused', request.paused);
    const text = query.toString();
    const token = request.pageToken ? decodePageToken(text, request.pageToken) : undefined;
    const response = await this.page(text, request.pageSize ?? 50, token);
    const rows = (response.schedules ?? [])
      .map(rowOf)
      .filter(
        (row): row is ScheduleSummary =>
          row !== undefined &&
          (request.paused === undefined || row.paused === request.paused) &&
          (request.taskType === undefined || row.taskType === request.taskType),
      );
    // The type first (no describe for a row the key may not see anyway), then the host.
    const typed = visibleTasks(
      { allowedTaskTypes: access.allowedTaskTypes, allowedCallbackHosts: undefined },
      rows,
    );
    const schedules = access.allowedCallbackHosts
      ? visibleTasks(access, await this.withCallbackUrls(typed)).map(({ callbackUrl: _url, ...row }) => row)
      : typed;
    const following = nonEmpty(response.nextPageToken);
    return { schedules, nextPageToken: following ? encodePageToken(text, following) : null };
  }

  /** Rows with their task's callback URL, each described (bounded); '' when the describe failed. */
  private async withCallbackUrls(
    rows: ScheduleSummary[],
  ): Promise<(ScheduleSummary & { callbackUrl: string })[]> {
    const urls = await bounded(rows, DESCRIBE_CONCURRENCY, (row) =>
      this.read(row.owner, row.scheduleId).then(
        (described) => described.spec.callbackUrl,
        () => '',
      ),
    );
    return rows.map((row, i) => ({ ...row, callbackUrl: urls[i]! }));
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

/** `fn` of every item, at most `limit` at a time, in order. */
async function bounded<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let i = 0; i < items.length; i += limit) {
    results.push(...(await Promise.all(items.slice(i, i + limit).map(fn))));
  }
  return results;
}

function nonEmpty(token: Uint8Array | null | undefined): Uint8Array | undefined {
  return token && token.length > 0 ? token : undefined;
}
