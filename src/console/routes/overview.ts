/** The overview page (counts now, the charts, the table per task type) and each task type's page. */
import type { FastifyInstance } from 'fastify';
import {
  ANONYMOUS,
  countableTypes,
  hasScope,
  listOwner,
  visibleTasks,
  type Principal,
} from '../../auth/principal.js';
import { ApiError, ErrorCode } from '../../errors/catalog.js';
import { toFieldProblems } from '../../validation/json-schema.js';
import { loadLagPanel } from '../charts/prometheus.js';
import type { ConsoleContext } from '../context.js';
import { chartsSection, chartsWithheld, type ChartScopeView } from '../views/charts.js';
import { overviewPage, typePage, type Overview } from '../views/overview.js';

const SAMPLE_SIZE = 500;
/** Window of the overview's SUCCEEDED and CANCELLED counts. */
const FINISHED_WINDOW_MS = 24 * 3600_000;
const DEAD_LETTER_CAP = 1000;

export function consoleOverviewRoutes(app: FastifyInstance, ctx: ConsoleContext): void {
  const { tasks, page, viewerOf, config, charts, validateList } = ctx;
  /**
   * Open tasks now; dead letters now (latest runs only: visibility keeps a replayed task's old FAILED
   * run, which a plain count would include; at most DEAD_LETTER_CAP); SUCCEEDED and CANCELLED over
   * the last FINISHED_WINDOW_MS.
   */
  const countsByStatus = async (
    principal: Principal,
    taskTypes: readonly string[] | undefined,
    now: number,
  ): Promise<Record<string, number>> => {
    const scope = { taskTypes };
    const [open, deadLetters, succeeded, cancelled] = await Promise.all([
      tasks.visibility.countByStatus(['SCHEDULED', 'RUNNING'], scope),
      tasks.visibility.list(undefined, { status: 'FAILED', pageSize: DEAD_LETTER_CAP }),
      tasks.visibility.countClosed('SUCCEEDED', now - FINISHED_WINDOW_MS, undefined, scope),
      tasks.visibility.countClosed('CANCELLED', now - FINISHED_WINDOW_MS, undefined, scope),
    ]);
    return {
      ...open,
      FAILED: visibleTasks(principal, deadLetters.tasks).length,
      SUCCEEDED: succeeded,
      CANCELLED: cancelled,
    };
  };

  /**
   * Whose tasks the charts count: an owner sees only its own; an admin every owner's, or the one
   * named by `?owner=`; a key limited to some task types only those (a type page of another type counts
   * nothing, as a type without tasks). The type comes from the path, checked as the list checks it.
   */
  const chartScope = (
    principal: Principal,
    taskTypes: readonly string[] | undefined,
    query: { owner?: string },
    taskType?: string,
  ): ChartScopeView => {
    const named = query.owner?.trim() || undefined;
    const problems = [
      ...(named && !validateList({ owner: named }) ? toFieldProblems(validateList.errors) : []),
      ...(taskType !== undefined && !validateList({ taskType }) ? toFieldProblems(validateList.errors) : []),
    ];
    if (problems.length > 0) {
      throw new ApiError(
        ErrorCode.InvalidArgument,
        problems.map((p) => `${p.field} ${p.reason}`).join('; '),
        problems,
      );
    }
    return { owner: hasScope(principal, 'admin') ? named : principal.owner, taskType, taskTypes };
  };

  /** The charts within the key's limits; none for a key limited to callback hosts (not countable). */
  const chartsOf = async (principal: Principal, query: { owner?: string }, taskType?: string) => {
    const countable = countableTypes(principal);
    const scope = chartScope(principal, countable?.taskTypes, query, taskType);
    if (!countable) return chartsWithheld();
    const unlimited = !principal.allowedTaskTypes && !principal.allowedCallbackHosts;
    const [data, lag] = await Promise.all([
      charts.load(scope),
      // The workers' metrics are per type, not per owner: admins only, and only those of every type.
      hasScope(principal, 'admin') && unlimited
        ? loadLagPanel(config.console.prometheusUrl, scope.taskType)
        : undefined,
    ]);
    // Schedule occurrences are schedule data: the forecast's second series needs schedules:read.
    const shown = hasScope(principal, 'schedules:read') ? data : { ...data, occurrences: undefined };
    return chartsSection(shown, lag, scope);
  };

  app.get('/console/types/:taskType', async (request, reply) => {
    const principal = request.viewer?.principal ?? ANONYMOUS;
    const { taskType } = request.params as { taskType: string };
    const section = await chartsOf(principal, request.query as { owner?: string }, taskType);
    return page(reply, typePage(viewerOf(request, reply), taskType, section, new Date().toISOString()));
  });

  app.get('/console', async (request, reply) => {
    const principal = request.viewer?.principal ?? ANONYMOUS;
    // Namespace-wide counts: admin keys, within their task types; none for a host-limited key.
    const countable = hasScope(principal, 'admin') ? countableTypes(principal) : undefined;
    const now = Date.now();
    const [byStatus, overdue, sample, section] = await Promise.all([
      countable ? countsByStatus(principal, countable.taskTypes, now) : undefined,
      countable ? tasks.visibility.countOverdue(now, { taskTypes: countable.taskTypes }) : undefined,
      tasks.visibility.list(listOwner(principal, undefined), { pageSize: SAMPLE_SIZE }),
      chartsOf(principal, request.query as { owner?: string }),
    ]);
    const visible = visibleTasks(principal, sample.tasks);
    const byType = new Map<string, Record<string, number>>();
    for (const task of visible) {
      const counts = byType.get(task.taskType) ?? {};
      counts[task.status] = (counts[task.status] ?? 0) + 1;
      byType.set(task.taskType, counts);
    }
    const overview: Overview = {
      byStatus,
      overdue,
      byType: [...byType]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([taskType, counts]) => ({ taskType, counts })),
      sampled: visible.length,
      refreshedAt: new Date(now).toISOString(),
    };
    return page(reply, overviewPage(viewerOf(request, reply), overview, section));
  });
}
