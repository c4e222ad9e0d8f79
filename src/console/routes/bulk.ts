/** Bulk replay and bulk cancel of one task type, and the batch job they start. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ANONYMOUS, checkBulkAccess } from '../../auth/principal.js';
import { toFieldProblems, type FieldProblem } from '../../validation/json-schema.js';
import type { ConsoleContext, Form } from '../context.js';
import { batchPage, bulkPage } from '../views/actions.js';

export function consoleBulkRoutes(app: FastifyInstance, ctx: ConsoleContext): void {
  const { tasks, page, viewerOf, audit, requireWrite, reasonOf, validateList } = ctx;
  type BulkFilter = { operation: 'replay' | 'cancel'; taskType: string; status: string };
  const bulkFilter = (raw: Form): BulkFilter => ({
    operation: raw.operation === 'cancel' ? 'cancel' : 'replay',
    taskType: raw.taskType?.trim() ?? '',
    status: raw.status?.trim().toUpperCase() ?? '',
  });
  const bulkBody = (filter: BulkFilter) => ({
    ...(filter.taskType ? { taskType: filter.taskType } : {}),
    ...(filter.status ? { status: filter.status } : {}),
  });
  /** The bulk API's rule: within a limited admin key's task types, never for a host-limited one. */
  const withinLimits = (request: FastifyRequest, filter: BulkFilter) =>
    checkBulkAccess(request.viewer?.principal ?? ANONYMOUS, filter.taskType || undefined);
  const checkBulk = (filter: BulkFilter): FieldProblem[] => {
    const allowed =
      filter.operation === 'replay' ? ['', 'FAILED', 'CANCELLED'] : ['', 'SCHEDULED', 'RUNNING'];
    const problems: FieldProblem[] = [];
    if (!allowed.includes(filter.status))
      problems.push({
        field: 'status',
        reason: `must be one of ${allowed.filter(Boolean).join(', ')} for ${filter.operation}`,
      });
    if (!filter.taskType)
      problems.push({ field: 'taskType', reason: 'is required (a bulk action names one task type)' });
    else if (!validateList({ taskType: filter.taskType }))
      problems.push(...toFieldProblems(validateList.errors));
    return problems;
  };
  /** Tasks the batch will act on: the same filter (latest runs, every owner), up to 1000 per status. */
  const countBulk = async (filter: BulkFilter) => {
    const statuses = filter.status
      ? [filter.status]
      : filter.operation === 'replay'
        ? ['FAILED']
        : ['SCHEDULED', 'RUNNING'];
    const lists = await Promise.all(
      statuses.map((status) =>
        tasks.visibility.list(undefined, {
          taskType: filter.taskType,
          status: status as never,
          pageSize: 1000,
        }),
      ),
    );
    return lists.reduce((sum, list) => sum + list.tasks.length, 0);
  };

  app.get('/console/bulk', async (request, reply) => {
    requireWrite(request, 'admin');
    const filter = bulkFilter(request.query as Form);
    if (!(request.query as Form).taskType)
      return page(reply, bulkPage(viewerOf(request, reply), filter, undefined, []));
    const problems = checkBulk(filter);
    if (problems.length === 0) withinLimits(request, filter);
    const matched = problems.length === 0 ? await countBulk(filter) : undefined;
    return page(
      reply,
      bulkPage(viewerOf(request, reply), filter, matched, problems),
      problems.length ? 400 : 200,
    );
  });

  app.post('/console/bulk', async (request, reply) => {
    requireWrite(request, 'admin');
    const raw = request.body as Form;
    const filter = bulkFilter(raw);
    const problems = checkBulk(filter);
    if (problems.length > 0)
      return page(reply, bulkPage(viewerOf(request, reply), filter, undefined, problems), 400);
    withinLimits(request, filter);
    const reason = reasonOf(raw);
    const job =
      filter.operation === 'replay'
        ? await tasks.bulk.replay(bulkBody(filter) as never)
        : await tasks.bulk.cancel(bulkBody(filter) as never);
    audit(request, `bulk-${filter.operation}`, {
      jobId: job.jobId,
      filter: bulkBody(filter),
      reason,
      outcome: 'ok',
    });
    return reply.redirect(`/console/batches/${encodeURIComponent(job.jobId)}`, 303);
  });

  app.get(
    '/console/batches/:jobId',
    async (request: FastifyRequest<{ Params: { jobId: string } }>, reply) => {
      requireWrite(request, 'admin');
      return page(
        reply,
        batchPage(viewerOf(request, reply), await tasks.bulk.describe(request.params.jobId)),
      );
    },
  );
}
