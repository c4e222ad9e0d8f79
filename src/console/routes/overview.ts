/** The overview page: counts now and the table per task type. */
import type { FastifyInstance } from 'fastify';
import { ANONYMOUS, hasScope, listOwner } from '../../auth/principal.js';
import type { ConsoleContext } from '../context.js';
import { overviewPage, type Overview } from '../views/overview.js';

const SAMPLE_SIZE = 500;
/** Window of the overview's SUCCEEDED and CANCELLED counts. */
const FINISHED_WINDOW_MS = 24 * 3600_000;
const DEAD_LETTER_CAP = 1000;

export function overviewRoutes(app: FastifyInstance, ctx: ConsoleContext): void {
  const { tasks, page, viewerOf } = ctx;
  /**
   * Open tasks now; dead letters now (latest runs only: visibility keeps a replayed task's old FAILED
   * run, which a plain count would include; at most DEAD_LETTER_CAP); SUCCEEDED and CANCELLED over
   * the last FINISHED_WINDOW_MS.
   */
  const countsByStatus = async (now: number): Promise<Record<string, number>> => {
    const [open, deadLetters, succeeded, cancelled] = await Promise.all([
      tasks.visibility.countByStatus(['SCHEDULED', 'RUNNING']),
      tasks.list(undefined, { status: 'FAILED', pageSize: DEAD_LETTER_CAP }),
      tasks.visibility.countClosed('SUCCEEDED', now - FINISHED_WINDOW_MS),
      tasks.visibility.countClosed('CANCELLED', now - FINISHED_WINDOW_MS),
    ]);
    return { ...open, FAILED: deadLetters.tasks.length, SUCCEEDED: succeeded, CANCELLED: cancelled };
  };

  app.get('/console', async (request, reply) => {
    const principal = request.viewer?.principal ?? ANONYMOUS;
    const admin = hasScope(principal, 'admin');
    const now = Date.now();
    const [byStatus, overdue, sample] = await Promise.all([
      admin ? countsByStatus(now) : undefined,
      admin ? tasks.visibility.countOverdue(now) : undefined,
      tasks.list(listOwner(principal, undefined), { pageSize: SAMPLE_SIZE }),
    ]);
    const byType = new Map<string, Record<string, number>>();
    for (const task of sample.tasks) {
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
      sampled: sample.tasks.length,
      refreshedAt: new Date(now).toISOString(),
    };
    return page(reply, overviewPage(viewerOf(request, reply), overview));
  });
}
