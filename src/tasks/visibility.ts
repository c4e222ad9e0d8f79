/**
 * What Temporal visibility says about many tasks at once: pages of tasks, counts by status, due
 * time and close time, and which runs are no longer a task's latest. Every query is built by
 * `VisibilityQuery` (src/tasks/query.ts).
 */
import proto from '@temporalio/proto';
import type { ListTasksQuery, TaskList } from '../contract/tasks.js';
import { invalidArgument } from '../errors/catalog.js';
import { workflowIdOf } from '../shared/owner.js';
import type { TaskStatus } from '../shared/task.js';
import type { ExecutionInfo, TemporalCalls } from '../temporal/calls.js';
import { parseRfc3339 } from './input.js';
import { decodePageToken, encodePageToken } from './page-token.js';
import { VisibilityQuery } from './query.js';
import { toTaskSummary } from './views.js';

const { WorkflowExecutionStatus } = proto.temporal.api.enums.v1;

/** Which tasks a count is about: one owner's (all when undefined) and one type's (all when undefined). */
export interface TaskFilter {
  owner?: string | undefined;
  taskType?: string | undefined;
  /** Only types matching these (a key's `allowedTaskTypes`: names or prefixes ending in `*`); undefined: any. */
  taskTypes?: readonly string[] | undefined;
}

export class TaskVisibility {
  constructor(
    private readonly temporal: TemporalCalls,
    private readonly sharedQueue: string,
  ) {}

  /** This service's tasks, narrowed to `filter`. */
  tasks(filter: TaskFilter = {}): VisibilityQuery {
    let query = VisibilityQuery.tasks(this.sharedQueue);
    if (filter.owner !== undefined) query = query.owner(filter.owner);
    if (filter.taskType) query = query.is('taskType', filter.taskType);
    if (filter.taskTypes) query = query.matchesAny('taskType', filter.taskTypes);
    return query;
  }

  async count(query: VisibilityQuery): Promise<number> {
    const { count } = await this.temporal.call(() => this.temporal.client.workflow.count(query.toString()));
    return count;
  }

  /** The visibility query of a list request (`idPrefix` is matched after it, case-sensitively). */
  listQuery(owner: string | undefined, request: Omit<ListTasksQuery, 'owner'>): VisibilityQuery {
    let query = this.tasks({ owner });
    if (request.status) query = query.status(request.status);
    if (request.taskType) query = query.is('taskType', request.taskType);
    return withListFilters(query, owner, request);
  }

  /**
   * One page of tasks, newest first, the latest run of each task only: those of `owner`, or of every
   * owner when undefined (admin).
   */
  async list(
    owner: string | undefined,
    request: Omit<ListTasksQuery, 'owner'>,
    /** Tasks that closed in this range (ms; the console's outcome bars), beyond the API's filters. */
    closed?: { from?: number | undefined; to?: number | undefined },
  ): Promise<TaskList> {
    let query = this.listQuery(owner, request);
    if (closed) query = query.closed().between('closeTime', closed.from, closed.to);
    const text = query.toString();
    const pageSize = request.pageSize ?? 50;
    const nextPageToken = request.pageToken ? decodePageToken(text, request.pageToken) : undefined;
    const response = await this.page(text, pageSize, nextPageToken);
    const executions = response.executions ?? [];
    const latest = await Promise.all(executions.map((execution) => this.isLatestRun(execution)));
    const summaries = await Promise.all(
      executions
        .filter((_, i) => latest[i])
        .map(async (execution) => toTaskSummary(await this.temporal.decodeMemo(execution))),
    );
    // Case-sensitive, whatever the visibility store: SQLite's and MySQL's STARTS_WITH ignore case.
    const { idPrefix } = request;
    const tasks = idPrefix ? summaries.filter((task) => task.taskId.startsWith(idPrefix)) : summaries;
    let following = nonEmpty(response.nextPageToken);
    // Visibility gives a token after every full page, also when nothing follows: look one row ahead,
    // so that the last page says it is the last instead of leading to an empty one.
    if (following && executions.length >= pageSize) {
      const ahead = await this.page(text, 1, following);
      if ((ahead.executions ?? []).length === 0) following = undefined;
    }
    return { tasks, nextPageToken: following ? encodePageToken(text, following) : null };
  }

  /** Tasks by status right now: one count per status; FAILED counts closed runs too. */
  async countByStatus(
    statuses: readonly TaskStatus[],
    filter: TaskFilter = {},
  ): Promise<Record<string, number>> {
    const counts = await Promise.all(
      statuses.map(async (status) => {
        const query = this.tasks(filter).status(status);
        return [status, await this.count(status === 'FAILED' ? query : query.open())] as const;
      }),
    );
    return Object.fromEntries(counts);
  }

  /** Tasks that ended with `status` (SUCCEEDED, CANCELLED, FAILED) in `[from, to)` (ms; `to` open when absent). */
  async countClosed(status: TaskStatus, from: number, to?: number, filter: TaskFilter = {}): Promise<number> {
    return this.count(this.tasks(filter).status(status).closed().between('closeTime', from, to));
  }

  /** Scheduled tasks due in `[from, to)` (ms; `from` open when undefined: the overdue ones). */
  async countDue(from: number | undefined, to: number, filter: TaskFilter = {}): Promise<number> {
    return this.count(this.tasks(filter).open().status('SCHEDULED').between('executeAt', from, to));
  }

  /** Open, scheduled tasks due before `before` (ms): the overdue ones. */
  countOverdue(before: number, filter: TaskFilter = {}): Promise<number> {
    return this.countDue(undefined, before, filter);
  }

  /** Runs matching `query` that are no longer the latest run of their task. */
  async supersededRuns(query: VisibilityQuery): Promise<string[]> {
    const superseded: string[] = [];
    let token: Uint8Array | undefined;
    do {
      const response = await this.page(query.toString(), 1000, token);
      const executions = response.executions ?? [];
      for (let i = 0; i < executions.length; i += 100) {
        const chunk = executions.slice(i, i + 100);
        const latest = await Promise.all(chunk.map((execution) => this.isLatestRun(execution)));
        chunk.forEach((execution, j) => {
          if (!latest[j] && execution.execution?.runId) superseded.push(execution.execution.runId);
        });
      }
      token = nonEmpty(response.nextPageToken);
    } while (token);
    return superseded;
  }

  private page(query: string, pageSize: number, nextPageToken: Uint8Array | undefined) {
    return this.temporal.call(() =>
      this.temporal.client.workflowService.listWorkflowExecutions({
        namespace: this.temporal.namespace,
        pageSize,
        nextPageToken,
        query,
      }),
    );
  }

  private async isLatestRun(execution: ExecutionInfo): Promise<boolean> {
    if (execution.status === WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING) return true;
    const workflowId = execution.execution?.workflowId ?? '';
    const description = await this.temporal
      .call(() => this.temporal.client.workflow.getHandle(workflowId).describe(), workflowId)
      .catch(() => undefined);
    return !description || description.runId === execution.execution?.runId;
  }
}

function nonEmpty(token: Uint8Array | null | undefined): Uint8Array | undefined {
  return token && token.length > 0 ? token : undefined;
}

/**
 * The id prefix and due range of a list. The prefix matches workflow ids, which carry the owner
 * (`<owner>/<taskId>`): it needs one owner.
 */
function withListFilters(
  query: VisibilityQuery,
  owner: string | undefined,
  request: Pick<ListTasksQuery, 'idPrefix' | 'dueAfter' | 'dueBefore'>,
): VisibilityQuery {
  let narrowed = query;
  if (request.idPrefix) {
    if (owner === undefined) {
      throw invalidArgument(
        'idPrefix',
        "needs owner: task ids are unique per owner, so an admin listing every owner's tasks names one",
      );
    }
    narrowed = narrowed.startsWith('workflowId', workflowIdOf(owner, request.idPrefix));
  }
  const due: Partial<Record<'dueAfter' | 'dueBefore', number>> = {};
  for (const field of ['dueAfter', 'dueBefore'] as const) {
    const text = request[field];
    if (text === undefined) continue;
    const at = parseRfc3339(text);
    if (at === undefined) {
      throw invalidArgument(
        field,
        'must be an RFC 3339 time with an offset (Z or +08:00), e.g. 2026-12-02T18:30:00+08:00',
      );
    }
    due[field] = at;
  }
  if (due.dueAfter !== undefined && due.dueBefore !== undefined && due.dueAfter >= due.dueBefore) {
    throw invalidArgument('dueBefore', 'must be later than dueAfter');
  }
  return narrowed.between('executeAt', due.dueAfter, due.dueBefore);
}
