/**
 * The operator console at `/console` (issue 15): server-rendered pages over the same TaskService as
 * the JSON API, with the same keys and scopes. A browser logs in by pasting an API key; the key stays
 * on the server and the browser holds a signed session cookie naming the key's id (src/console/session.ts;
 * HttpOnly, SameSite=Strict, Secure under TLS), which any API process with the same secret accepts. Every POST carries a CSRF token; every state-changing action writes an audit line.
 * A peer of the JSON API on the same Fastify app: src/api/main.ts registers it when
 * CONSOLE_ENABLED=true, after the API (it uses the API's authentication hooks).
 */
import cookie from '@fastify/cookie';
import csrfProtection from '@fastify/csrf-protection';
import formbody from '@fastify/formbody';
import helmet from '@fastify/helmet';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, ErrorCode } from '../errors.js';
import { parseJsonText } from '../http/json-body.js';
import {
  ListTasksQuerySchema,
  ReplayBodySchema,
  type ListTasksQuery,
  type ReplayBody,
} from '../contract/tasks.js';
import type { TaskService } from '../tasks/service.js';
import type { KeyStore } from '../auth/key-store.js';
import { isLoopbackHost } from '../auth/secure-default.js';
import {
  accessFor,
  ANONYMOUS,
  hasScope,
  listOwner,
  permissionDenied,
  type Principal,
} from '../auth/principal.js';
import type { Config } from '../config.js';
import { workflowIdOf } from '../shared/owner.js';
import { createAjv, toFieldProblems, type FieldProblem } from '../validation.js';
import { CONSOLE_CSS, CONSOLE_JS } from './assets.js';
import { newSession, RevokedSessions, SessionSigner } from './session.js';
import {
  batchPage,
  bulkPage,
  errorPage,
  loginPage,
  overviewPage,
  replayPage,
  taskPage,
  tasksPage,
  taskUrl,
  type ListFilters,
  type Overview,
  type ReplayForm,
  type Viewer,
} from './views.js';

export interface ConsoleOptions {
  config: Readonly<Config>;
  tasks: TaskService;
  /** The API keys; undefined: authentication is off (loopback only) and the console needs no login. */
  keys: KeyStore | undefined;
}

/** What every console page needs: each one shows tasks, as GET /api/v1/tasks does. */
export const CONSOLE_SCOPE = 'tasks:read';

export const SESSION_COOKIE = 'dts_console';
const SAMPLE_SIZE = 500;
/** Window of the overview's SUCCEEDED and CANCELLED counts. */
const FINISHED_WINDOW_MS = 24 * 3600_000;
const DEAD_LETTER_CAP = 1000;

type Form = Record<string, string | undefined>;

declare module 'fastify' {
  interface FastifyRequest {
    /** Who is using the console; set on every console page but the login page and assets. */
    viewer: { principal: Principal } | undefined;
  }
}

export async function consoleRoutes(app: FastifyInstance, options: ConsoleOptions): Promise<void> {
  const { tasks, keys, config } = options;
  const signer = new SessionSigner(config.console.sessionSecrets);
  const sessionTtlMs = config.console.sessionTtlSeconds * 1000;
  const revoked = new RevokedSessions();
  if (keys && config.console.sessionSecrets.length === 0 && !isLoopbackHost(config.api.host)) {
    app.log.warn(
      'CONSOLE_SESSION_SECRET is not set: console sessions are signed with a random secret of this process, so behind a load balancer a session works only on the process that made it',
    );
  }
  const ajv = createAjv({ coerceTypes: true, useDefaults: true });
  const validateList = ajv.compile(ListTasksQuerySchema);
  const validateReplay = createAjv().compile(ReplayBodySchema);

  await app.register(helmet, {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'none'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'"],
        connectSrc: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
      },
    },
    strictTransportSecurity: false,
  });
  await app.register(cookie);
  await app.register(formbody);
  await app.register(csrfProtection, {
    sessionPlugin: '@fastify/cookie',
    cookieKey: 'dts_console_csrf',
    cookieOpts: { path: '/console', httpOnly: true, sameSite: 'strict' },
    getToken: (request) => (request.body as Form | undefined)?._csrf,
  });
  app.decorateRequest('viewer', undefined);

  const secure = (request: FastifyRequest) => request.protocol === 'https';

  const viewerOf = (request: FastifyRequest, reply: FastifyReply): Viewer => {
    const principal = request.viewer?.principal ?? ANONYMOUS;
    return {
      keyId: principal.keyId,
      owner: principal.owner,
      canWrite: hasScope(principal, 'tasks:write'),
      isAdmin: hasScope(principal, 'admin'),
      loggedIn: keys !== undefined,
      csrfToken: reply.generateCsrf({
        path: '/console',
        httpOnly: true,
        sameSite: 'strict',
        secure: secure(request),
      }),
    };
  };

  const page = (reply: FastifyReply, body: string, status = 200) =>
    reply.code(status).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(body);

  const audit = (
    request: FastifyRequest,
    action: string,
    fields: {
      taskId?: string;
      owner?: string;
      reason?: string;
      outcome: string;
      filter?: unknown;
      jobId?: string;
    },
  ) => {
    const principal = request.viewer?.principal;
    request.log.info(
      {
        audit: {
          action: `console.${action}`,
          keyId: principal?.keyId ?? null,
          owner: fields.owner ?? principal?.owner ?? null,
          taskId: fields.taskId ?? null,
          jobId: fields.jobId,
          filter: fields.filter,
          reason: fields.reason ?? null,
          outcome: fields.outcome,
          requestId: request.id,
          ip: request.ip,
        },
      },
      'audit',
    );
  };

  app.setErrorHandler((error: FastifyError | ApiError, request, reply) => {
    const csrfFailure = 'code' in error && String(error.code).startsWith('FST_CSRF');
    const apiError =
      error instanceof ApiError
        ? error
        : csrfFailure
          ? new ApiError(
              ErrorCode.PermissionDenied,
              'the form is stale or forged (CSRF token missing or invalid); reload the page',
            )
          : error.statusCode !== undefined && error.statusCode < 500
            ? new ApiError(ErrorCode.InvalidArgument, error.message)
            : new ApiError(ErrorCode.Internal, 'internal error', undefined, { cause: error });
    if (apiError.status >= 500) request.log.error({ err: error }, 'console request failed');
    if (request.method === 'POST') {
      audit(request, request.routeOptions.url ?? 'post', {
        taskId: (request.params as { taskId?: string } | undefined)?.taskId,
        outcome: apiError.code,
        reason: (request.body as Form | undefined)?.reason,
      });
    }
    const viewer = request.viewer ? viewerOf(request, reply) : undefined;
    return page(reply, errorPage(viewer, apiError.status, apiError.code, apiError.message), apiError.status);
  });

  // Every POST, the login included, carries the token of its form: checked before anything else.
  app.addHook('preHandler', (request, reply, done) => {
    if (request.method !== 'POST') return done();
    app.csrfProtection(request, reply, done);
  });

  // Who is asking: the key behind the session cookie, checked again on every request (a key
  // disabled or expired since the login ends the session).
  app.addHook('preHandler', async (request, reply) => {
    const url = request.routeOptions.url ?? '';
    if (url.startsWith('/console/static/') || url === '/console/login') return;
    if (!keys) {
      request.viewer = { principal: ANONYMOUS };
      return;
    }
    const now = Date.now();
    const ring = keys.current;
    const session = signer.verify(request.cookies[SESSION_COOKIE], now, (keyId) => ring.entry(keyId)?.hash);
    const entry = session ? ring.entry(session.keyId) : undefined;
    const notBefore = entry?.sessionsNotBefore === undefined ? 0 : Date.parse(entry.sessionsNotBefore);
    const live = session !== undefined && !revoked.has(session, now) && session.issuedAt >= notBefore;
    const result = entry && live ? ring.admit(entry, now) : undefined;
    if (!result?.ok) {
      if (request.method === 'GET') return reply.redirect('/console/login', 303);
      throw new ApiError(
        ErrorCode.Unauthenticated,
        'log in again: the console session is missing or expired',
      );
    }
    // Every page shows tasks (payloads, callback URLs): the scope GET /api/v1/tasks needs. A key that
    // lost it since its login reads nothing more; logging out needs no scope.
    if (url !== '/console/logout' && !hasScope(result.principal, CONSOLE_SCOPE)) {
      throw permissionDenied('authorization', `lacks scope ${CONSOLE_SCOPE}`);
    }
    request.viewer = { principal: result.principal };
  });

  const requireWrite = (request: FastifyRequest, scope: 'tasks:write' | 'admin' = 'tasks:write') => {
    if (!hasScope(request.viewer?.principal ?? ANONYMOUS, scope)) {
      throw permissionDenied('authorization', `lacks scope ${scope}`);
    }
  };

  const reasonOf = (form: Form): string => {
    const reason = form.reason?.trim() ?? '';
    if (reason === '')
      throw new ApiError(ErrorCode.InvalidArgument, 'reason is required', [
        { field: 'reason', reason: 'is required' },
      ]);
    return reason.slice(0, 500);
  };

  app.get('/console/static/console.css', async (_request, reply) =>
    reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=300').send(CONSOLE_CSS),
  );
  app.get('/console/static/console.js', async (_request, reply) =>
    reply
      .type('text/javascript; charset=utf-8')
      .header('cache-control', 'public, max-age=300')
      .send(CONSOLE_JS),
  );

  app.get('/console/login', async (request, reply) => {
    if (!keys) return reply.redirect('/console', 303);
    return page(reply, loginPage(viewerOf(request, reply).csrfToken));
  });

  app.post('/console/login', async (request, reply) => {
    if (!keys) return reply.redirect('/console', 303);
    const key = ((request.body as Form | undefined)?.key ?? '').trim();
    const ring = keys.current;
    // A login guesses a key as an API call does: failures count against the same limits.
    const result = ring.authenticate(`Bearer ${key}`, Date.now());
    if (!result.ok) {
      audit(request, 'login', { outcome: `refused: ${result.reason}` });
      await app.authFailures.count(request, reply);
      return page(reply, loginPage(viewerOf(request, reply).csrfToken, 'That key is not valid.'), 401);
    }
    if (!hasScope(result.principal, CONSOLE_SCOPE)) {
      // A valid key (not a guess: no failure counted) that can read no page: no session at all.
      audit(request, 'login', { outcome: `refused: lacks scope ${CONSOLE_SCOPE}` });
      const message = `That key cannot use the console: it needs scope ${CONSOLE_SCOPE} (or admin).`;
      return page(reply, loginPage(viewerOf(request, reply).csrfToken, message), 403);
    }
    const keyId = result.principal.keyId!;
    const session = signer.sign(newSession(keyId, Date.now(), sessionTtlMs), ring.entry(keyId)!.hash);
    request.viewer = { principal: result.principal };
    audit(request, 'login', { outcome: 'ok' });
    return reply
      .setCookie(SESSION_COOKIE, session, {
        path: '/console',
        httpOnly: true,
        sameSite: 'strict',
        secure: secure(request),
        maxAge: config.console.sessionTtlSeconds,
      })
      .redirect('/console', 303);
  });

  app.post('/console/logout', async (request, reply) => {
    // The session ends on the server too: a copy of the cookie is refused from now on.
    const ring = keys?.current;
    const session =
      ring && signer.verify(request.cookies[SESSION_COOKIE], Date.now(), (id) => ring.entry(id)?.hash);
    if (session) revoked.revoke(session);
    audit(request, 'logout', { outcome: 'ok' });
    return reply.clearCookie(SESSION_COOKIE, { path: '/console' }).redirect('/console/login', 303);
  });

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

  app.get('/console/tasks', async (request, reply) => {
    const raw = request.query as Form;
    const principal = request.viewer?.principal ?? ANONYMOUS;
    const admin = hasScope(principal, 'admin');
    const filters: ListFilters = {
      status: raw.status || undefined,
      taskType: raw.taskType?.trim() || undefined,
      idPrefix: raw.idPrefix?.trim() || undefined,
      dueAfter: raw.dueAfter || undefined,
      dueBefore: raw.dueBefore || undefined,
      // Task ids are unique per owner: an admin's id prefix searches one owner, their own unless named.
      owner: admin ? raw.owner?.trim() || (raw.idPrefix?.trim() ? principal.owner : undefined) : undefined,
    };
    const query: Record<string, unknown> = {};
    for (const key of ['status', 'taskType', 'idPrefix', 'owner'] as const)
      if (filters[key]) query[key] = filters[key];
    if (raw.pageToken) query.pageToken = raw.pageToken;
    const problems: FieldProblem[] = [];
    // The time inputs are datetime-local, read as UTC (the page says so).
    for (const key of ['dueAfter', 'dueBefore'] as const) {
      const value = filters[key];
      if (!value) continue;
      const at = utcTime(value);
      if (at === undefined) problems.push({ field: key, reason: 'is not a date and time' });
      else query[key] = new Date(at).toISOString();
    }
    if (!validateList(query)) problems.push(...toFieldProblems(validateList.errors));
    if (problems.length > 0) {
      throw new ApiError(
        ErrorCode.InvalidArgument,
        problems.map((d) => `${d.field} ${d.reason}`).join('; '),
        problems,
      );
    }
    const { owner, ...rest } = query as ListTasksQuery;
    const list = await tasks.list(listOwner(principal, owner), rest);
    let nextUrl: string | undefined;
    if (list.nextPageToken) {
      const params = new URLSearchParams();
      for (const [key, value] of Object.entries(filters)) if (value) params.set(key, value);
      params.set('pageToken', list.nextPageToken);
      nextUrl = `/console/tasks?${params.toString()}`;
    }
    return page(reply, tasksPage(viewerOf(request, reply), filters, list, nextUrl));
  });

  type TaskRequest = FastifyRequest<{
    Params: { taskId: string };
    Querystring: { owner?: string; replayed?: string };
  }>;
  const accessOf = (request: TaskRequest) =>
    accessFor(request.viewer?.principal ?? ANONYMOUS, request.query.owner || undefined);

  app.get('/console/tasks/:taskId', async (request: TaskRequest, reply) => {
    const access = accessOf(request);
    const task = await tasks.get(access.owner, request.params.taskId);
    return page(
      reply,
      taskPage(viewerOf(request, reply), task, {
        temporalUiUrl: config.console.temporalUiUrl,
        namespace: config.temporal.namespace,
        workflowId: workflowIdOf(task.owner, task.taskId),
        flash: request.query.replayed ? 'Replayed: a new run of this task has started.' : undefined,
      }),
    );
  });

  app.post('/console/tasks/:taskId/cancel', async (request: TaskRequest, reply) => {
    requireWrite(request);
    const reason = reasonOf(request.body as Form);
    const access = accessOf(request);
    const task = await tasks.cancel(access, request.params.taskId);
    audit(request, 'cancel', { taskId: task.taskId, owner: task.owner, reason, outcome: 'ok' });
    return reply.redirect(taskUrl(task.taskId, task.owner, access), 303);
  });

  app.post('/console/tasks/:taskId/reschedule', async (request: TaskRequest, reply) => {
    requireWrite(request);
    const form = request.body as Form;
    const reason = reasonOf(form);
    const at = utcTime(form.executeAt ?? '');
    if (at === undefined)
      throw new ApiError(ErrorCode.InvalidArgument, 'executeAt is not a date and time', [
        { field: 'executeAt', reason: 'is not a date and time' },
      ]);
    const access = accessOf(request);
    const task = await tasks.reschedule(access, request.params.taskId, {
      executeAt: new Date(at).toISOString(),
    });
    audit(request, 'reschedule', { taskId: task.taskId, owner: task.owner, reason, outcome: 'ok' });
    return reply.redirect(taskUrl(task.taskId, task.owner, access), 303);
  });

  app.get('/console/tasks/:taskId/replay', async (request: TaskRequest, reply) => {
    const task = await tasks.get(accessOf(request).owner, request.params.taskId);
    const form: ReplayForm = {
      payload: JSON.stringify(task.payload, null, 2),
      payloadVersion: String(task.payloadVersion),
      maxRetries: String(task.maxRetries),
      reason: '',
    };
    return page(reply, replayPage(viewerOf(request, reply), task, form, []));
  });

  app.post('/console/tasks/:taskId/replay', async (request: TaskRequest, reply) => {
    requireWrite(request);
    const raw = request.body as Form;
    const form: ReplayForm = {
      payload: raw.payload ?? '',
      payloadVersion: raw.payloadVersion ?? '',
      maxRetries: raw.maxRetries ?? '',
      reason: raw.reason ?? '',
    };
    const access = accessOf(request);
    const { body, problems } = parseReplayForm(form, config.limits.maxPayloadDepth);
    if (problems.length === 0 && !validateReplay(body))
      problems.push(...toFieldProblems(validateReplay.errors));
    if (problems.length === 0) {
      try {
        const task = await tasks.replay(access, request.params.taskId, body);
        audit(request, 'replay', {
          taskId: task.taskId,
          owner: task.owner,
          reason: form.reason.trim(),
          outcome: 'ok',
        });
        return reply.redirect(
          `${taskUrl(task.taskId, task.owner, access)}${task.owner === access.owner && !request.query.owner ? '?' : '&'}replayed=1`,
          303,
        );
      } catch (err) {
        if (!(err instanceof ApiError) || err.status >= 500 || err.code === ErrorCode.TaskNotFound) throw err;
        problems.push(
          ...(err.details && err.details.length > 0
            ? err.details
            : [{ field: 'request', reason: err.message }]),
        );
      }
    }
    audit(request, 'replay', {
      taskId: request.params.taskId,
      owner: access.owner,
      reason: form.reason.trim(),
      outcome: 'INVALID_ARGUMENT',
    });
    const task = await tasks.get(access.owner, request.params.taskId);
    return page(reply, replayPage(viewerOf(request, reply), task, form, problems), 400);
  });

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
        tasks.list(undefined, { taskType: filter.taskType, status: status as never, pageSize: 1000 }),
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
    const reason = reasonOf(raw);
    const job =
      filter.operation === 'replay'
        ? await tasks.bulkReplay(bulkBody(filter) as never)
        : await tasks.bulkCancel(bulkBody(filter) as never);
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
      return page(reply, batchPage(viewerOf(request, reply), await tasks.batch(request.params.jobId)));
    },
  );
}

/** A `datetime-local` value read as UTC (the pages say so); undefined when it is not one. */
export function utcTime(value: string): number | undefined {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$/.test(value)) return undefined;
  const ms = Date.parse(`${value.length === 16 ? `${value}:00` : value}Z`);
  return Number.isNaN(ms) ? undefined : ms;
}

/** The replay form as a ReplayBody, or the problems of each field; the API's own rules follow. */
export function parseReplayForm(
  form: ReplayForm,
  maxPayloadDepth: number,
): { body: ReplayBody; problems: FieldProblem[] } {
  const problems: FieldProblem[] = [];
  const body: Record<string, unknown> = {};
  if (form.reason.trim() === '') problems.push({ field: 'reason', reason: 'is required' });
  try {
    // The API's own JSON checks: no __proto__, no 1e400 turned into null, no integer rounded.
    const payload = parseJsonText(form.payload, { field: 'payload', maxDepth: maxPayloadDepth });
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
      problems.push({ field: 'payload', reason: 'must be a JSON object' });
    } else body.payload = payload;
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    problems.push(...(err.details ?? [{ field: 'payload', reason: err.message }]));
  }
  for (const field of ['payloadVersion', 'maxRetries'] as const) {
    const text = form[field].trim();
    if (text === '') continue;
    if (!/^-?\d+$/.test(text)) problems.push({ field, reason: 'must be an integer' });
    else body[field] = Number(text);
  }
  return { body: body as ReplayBody, problems };
}
