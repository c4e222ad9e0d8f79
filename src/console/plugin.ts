/**
 * The operator console at `/console` (issue 15): server-rendered pages over the same TaskService as
 * the JSON API, with the same keys and scopes. A browser logs in by pasting an API key; the key stays
 * on the server and the browser holds a signed session cookie naming the key's id (src/console/session.ts;
 * HttpOnly, SameSite=Strict, Secure under TLS), which any API process with the same secret accepts. Every POST carries a CSRF token; every state-changing action writes an audit line.
 * What a key may see and do is decided by the API's own functions (src/auth/principal.ts: owner,
 * scopes, task-type and callback-host limits) and its requests count on the API's per-key rate
 * limiter (`app.limitKey`): the console shows a key nothing the API would not answer it.
 * A peer of the JSON API on the same Fastify app: src/api/main.ts registers it when
 * CONSOLE_ENABLED=true, after the API (it uses the API's authentication hooks).
 */
import cookie from '@fastify/cookie';
import csrfProtection from '@fastify/csrf-protection';
import formbody from '@fastify/formbody';
import helmet from '@fastify/helmet';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, ErrorCode } from '../errors/catalog.js';
import type { KeyStore } from '../auth/key-store.js';
import type { TaskFilter } from '../tasks/visibility.js';
import { ANONYMOUS, hasScope, permissionDenied, type Principal } from '../auth/principal.js';
import { isLoopbackHost } from '../auth/secure-default.js';
import type { Config } from '../config/environment.js';
import { ListTasksQuerySchema } from '../contract/tasks.js';
import type { ScheduleService } from '../schedules/service.js';
import type { TaskService } from '../tasks/service.js';
import { createAjv } from '../validation/json-schema.js';
import { CONSOLE_CSS, CONSOLE_JS } from './assets.js';
import { newSession, RevokedSessions, SessionSigner } from './session.js';
import { ChartCounts } from './charts/data.js';
import { upcomingOccurrences } from './charts/occurrences.js';
import type { AuditFields, ConsoleContext, Form } from './context.js';
import { consoleBulkRoutes } from './routes/bulk.js';
import { consoleOverviewRoutes } from './routes/overview.js';
import { consoleScheduleRoutes } from './routes/schedules.js';
import { consoleTaskRoutes } from './routes/tasks.js';
import { errorPage, loginPage, type Viewer } from './views/layout.js';

export interface ConsoleOptions {
  config: Readonly<Config>;
  tasks: TaskService;
  /** The schedules page and the forecast's occurrences; none when absent. */
  schedules?: ScheduleService | undefined;
  /** The API keys; undefined: authentication is off (loopback only) and the console needs no login. */
  keys: KeyStore | undefined;
}

/** What every console page needs: each one shows tasks, as GET /api/v1/tasks does. */
export const CONSOLE_SCOPE = 'tasks:read';

export const SESSION_COOKIE = 'dts_console';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who is using the console; set on every console page but the login page and assets. */
    viewer: { principal: Principal } | undefined;
  }
}

export async function consoleRoutes(app: FastifyInstance, options: ConsoleOptions): Promise<void> {
  const { tasks, schedules, keys, config } = options;
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
      schedules: schedules === undefined ? 'none' : scheduleRole(principal),
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

  const audit = (request: FastifyRequest, action: string, fields: AuditFields) => {
    const principal = request.viewer?.principal;
    request.log.info(
      {
        audit: {
          action: `console.${action}`,
          keyId: principal?.keyId ?? null,
          owner: fields.owner ?? principal?.owner ?? null,
          taskId: fields.taskId ?? null,
          ...(fields.scheduleId !== undefined && { scheduleId: fields.scheduleId }),
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
    // As the API's audit: every action, and every refusal of a key (403, 429), a page's too.
    if (request.method === 'POST' || apiError.status === 403 || apiError.status === 429) {
      audit(request, request.routeOptions.url ?? request.method, {
        taskId: (request.params as { taskId?: string } | undefined)?.taskId,
        scheduleId: (request.params as { scheduleId?: string } | undefined)?.scheduleId,
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
    request.viewer = { principal: result.principal };
    // Logging out needs no scope and is never refused: it only ends the session.
    if (url === '/console/logout') return;
    // The API's order: the key, its rate limit (one limiter: a page or a form counts as an API call,
    // and a key answered 429 on the API gets 429 here), then the scope.
    request.principal = result.principal;
    await app.limitKey(request, reply);
    // Every page shows tasks (payloads, callback URLs): the scope GET /api/v1/tasks needs. A key that
    // lost it since its login reads nothing more.
    if (!hasScope(result.principal, CONSOLE_SCOPE)) {
      throw permissionDenied('authorization', `lacks scope ${CONSOLE_SCOPE}`);
    }
  });

  const requireWrite = (
    request: FastifyRequest,
    scope: 'tasks:write' | 'schedules:read' | 'schedules:write' | 'admin' = 'tasks:write',
  ) => {
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
    // A login is a request of its key: over the key's rate limit, 429 and no session.
    request.principal = result.principal;
    await app.limitKey(request, reply);
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

  const ctx: ConsoleContext = {
    tasks,
    config,
    schedules,
    charts: new ChartCounts(tasks.visibility, {
      ...(schedules && { upcoming: (filter: TaskFilter) => upcomingOccurrences(schedules, filter) }),
    }),
    validateList,
    page,
    viewerOf,
    audit,
    requireWrite,
    reasonOf,
  };
  consoleOverviewRoutes(app, ctx);
  consoleTaskRoutes(app, ctx);
  consoleBulkRoutes(app, ctx);
  if (schedules) consoleScheduleRoutes(app, { ...ctx, schedules });
}

/** What the viewer may do with schedules: their scopes, as the API's schedule routes ask them. */
function scheduleRole(principal: Principal): Viewer['schedules'] {
  if (hasScope(principal, 'schedules:write') && hasScope(principal, 'schedules:read')) return 'write';
  return hasScope(principal, 'schedules:read') ? 'read' : 'none';
}
