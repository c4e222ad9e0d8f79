/**
 * The HTTP client: one request function with retries (503, 429, network errors and timeouts only),
 * one method per operation, checks before sending.
 */
import { randomUUID } from 'node:crypto';
import { checkPayload, checkTarget, wireTime, wireWhen } from './checks.js';
import { DelayedTaskError, type ErrorBody, type ErrorDetail } from './errors.js';
import { stringify } from './json.js';
import {
  withDates,
  type CreateTaskRequest,
  type CreateTaskResult,
  type CreateTasksItem,
  type ListTasksRequest,
  type ReplayRequest,
  type RescheduleRequest,
  type Task,
  type TaskPage,
  type TaskSummary,
} from './types.js';
import {
  backfillBody,
  scheduleBody,
  scheduleOf,
  schedulePageOf,
  schedulePath,
  type BackfillScheduleRequest,
  type CreateScheduleRequest,
  type CreateScheduleResult,
  type ListSchedulesRequest,
  type OverlapPolicy,
  type Schedule,
  type SchedulePage,
  type UpdateScheduleRequest,
} from './schedules.js';
import { USER_AGENT } from './version.js';
import {
  leaseOf,
  type ExtendResult,
  type Lease,
  type LeaseRequest,
  type LeaseResult,
  type NackRequest,
  type WireLease,
} from './pull/types.js';

/** @deprecated since 0.4.0, removed in 0.5.0: use {@link RetryPolicy}. */
export type RetryOptions = RetryPolicy;

export interface RetryPolicy {
  /** Retries after the first attempt. @defaultValue 3 */
  maxRetries?: number;
  /** First backoff; doubles per retry, full jitter. @defaultValue 250 */
  baseDelayMs?: number;
  /** Largest backoff. @defaultValue 5000 */
  maxDelayMs?: number;
  /** Largest wait a `Retry-After` header may ask for. @defaultValue 30000 */
  maxRetryAfterMs?: number;
}

export interface ClientOptions {
  /** e.g. `http://localhost:3000`. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  /** Limit of one HTTP attempt. @defaultValue 10000 */
  timeoutMs?: number;
  retry?: RetryPolicy;
  /** Prepended to the SDK's own user agent (`delayed-tasks-typescript/<version>`). */
  userAgent?: string;
  /** The `fetch` to use. @defaultValue globalThis.fetch */
  fetch?: typeof fetch;
}

const RETRYABLE_STATUS = new Set([429, 503]);

interface Request {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** Limit of one attempt, when it is not the client's. */
  timeoutMs?: number;
  /** Ends the call (no retry): a worker's shutdown ending its long poll. */
  signal?: AbortSignal;
}

/** What a long poll gets on top of its wait before its attempt times out. */
const LONG_POLL_MARGIN_MS = 10_000;

export class DelayedTasksClient {
  private readonly baseUrl: string;
  private readonly retry: Required<RetryPolicy>;
  private readonly headers: Record<string, string>;
  private readonly fetch: typeof fetch;
  private readonly timeoutMs: number;

  constructor(options: ClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.fetch = options.fetch ?? globalThis.fetch;
    this.retry = {
      maxRetries: 3,
      baseDelayMs: 250,
      maxDelayMs: 5000,
      maxRetryAfterMs: 30_000,
      ...options.retry,
    };
    this.headers = {
      accept: 'application/json',
      'user-agent': options.userAgent ? `${options.userAgent} ${USER_AGENT}` : USER_AGENT,
      ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
    };
  }

  /** Creates a task; `created` is false when the same task id and spec already existed. */
  async create(input: CreateTaskRequest): Promise<CreateTaskResult> {
    const body = createBody(input);
    const { status, body: task } = await this.send({ method: 'POST', path: '/api/v1/tasks', body });
    return { task: withDates<Task>(task as Record<string, unknown>), created: status === 201 };
  }

  /**
   * Creates up to 100 tasks in one request (`POST /api/v1/tasks/batch`). Returns one entry per
   * input, in order: the task and `created`, or the `error` a single `create` of that item would
   * throw (an item refused before sending has status 0 and is not sent; the others still are).
   * Task ids are generated before the first attempt, so the whole request is retried like a create
   * (503, 429, network errors); an item answered with its own error is never re-sent. A failure of
   * the whole request (401, 403, a 400 for the list itself, other 5xx) is thrown.
   */
  async createTasks(inputs: readonly CreateTaskRequest[]): Promise<CreateTasksItem[]> {
    const results: CreateTasksItem[] = [];
    const tasks: Array<ReturnType<typeof createBody>> = [];
    const sent: number[] = [];
    inputs.forEach((input, index) => {
      try {
        tasks.push(createBody(input));
        sent.push(index);
      } catch (err) {
        if (!(err instanceof DelayedTaskError)) throw err;
        results[index] = { index, taskId: input.taskId, error: err };
      }
    });
    if (inputs.length > 0 && tasks.length === 0) return results;
    const response = await this.send({ method: 'POST', path: '/api/v1/tasks/batch', body: { tasks } });
    const items = (response.body as { results?: unknown } | undefined)?.results;
    for (const item of Array.isArray(items) ? (items as BatchResultWire[]) : []) {
      const index = sent[item.index];
      const body = tasks[item.index];
      if (index === undefined || body === undefined) continue;
      results[index] = item.error
        ? { index, taskId: body.taskId, error: apiError(item.status, item.error, response.requestId) }
        : {
            index,
            taskId: body.taskId,
            created: item.status === 201,
            task: withDates<Task>(item.task ?? {}),
          };
    }
    sent.forEach((index, position) => {
      results[index] ??= {
        index,
        taskId: tasks[position]?.taskId ?? '',
        error: new DelayedTaskError(
          'UNKNOWN',
          'the response has no result for this item',
          response.status,
          [],
          response.requestId,
        ),
      };
    });
    return results;
  }

  /** The task as the service knows it now (`GET /api/v1/tasks/{taskId}`). */
  async status(taskId: string): Promise<Task> {
    return this.task({ method: 'GET', path: taskPath(taskId) });
  }

  /**
   * Cancels a task; cancelling a CANCELLED task is a no-op. Like reschedule and replay, answers
   * without payload, callback URL and attempt history when the key lacks `tasks:read`.
   */
  async cancel(taskId: string): Promise<Task> {
    return this.task({ method: 'POST', path: `${taskPath(taskId)}/cancel` });
  }

  /** Moves a SCHEDULED task to another time. */
  async reschedule(taskId: string, when: RescheduleRequest): Promise<Task> {
    const body = wireWhen(when, true);
    return this.task({ method: 'POST', path: `${taskPath(taskId)}/reschedule`, body });
  }

  /** Runs a FAILED or CANCELLED task again, with optional overrides. */
  async replay(taskId: string, overrides: ReplayRequest = {}): Promise<Task> {
    const { delaySeconds, executeAt, ...rest } = overrides;
    if (rest.payload !== undefined) checkPayload(rest.payload);
    const body = { ...definedOnly(rest), ...wireWhen({ delaySeconds, executeAt }, false) };
    return this.task({ method: 'POST', path: `${taskPath(taskId)}/replay`, body });
  }

  /** One page of tasks, newest first. */
  async list(query: ListTasksRequest = {}): Promise<TaskPage> {
    const { dueAfter, dueBefore, ...rest } = query;
    const wire = {
      ...rest,
      dueAfter: dueAfter === undefined ? undefined : wireTime('dueAfter', dueAfter, true),
      dueBefore: dueBefore === undefined ? undefined : wireTime('dueBefore', dueBefore, true),
    };
    const { body } = await this.send({ method: 'GET', path: '/api/v1/tasks', query: wire });
    const page = body as { tasks: Record<string, unknown>[]; nextPageToken: string | null };
    return {
      tasks: page.tasks.map((task) => withDates<TaskSummary>(task)),
      nextPageToken: page.nextPageToken,
    };
  }

  /**
   * Every task matching the filters, page after page (`for await (const task of client.listAll(...))`);
   * the next page is fetched only when the loop gets that far.
   */
  async *listAll(query: Omit<ListTasksRequest, 'pageToken'> = {}): AsyncGenerator<TaskSummary> {
    let pageToken: string | undefined;
    do {
      const page = await this.list({ ...query, pageToken });
      yield* page.tasks;
      pageToken = page.nextPageToken ?? undefined;
    } while (pageToken !== undefined);
  }

  /**
   * Creates a recurring task; `created` is false when the same schedule id and spec already existed.
   * Each occurrence is one task (`<scheduleId>-<nominal time>`), listed and inspected like any task.
   */
  async createSchedule(input: CreateScheduleRequest): Promise<CreateScheduleResult> {
    const body = scheduleBody(input);
    const { status, body: schedule } = await this.send({ method: 'POST', path: '/api/v1/schedules', body });
    return { schedule: scheduleOf(schedule as Record<string, unknown>), created: status === 201 };
  }

  /** The schedule with its next run times (from Temporal) and recent occurrences. */
  async getSchedule(scheduleId: string): Promise<Schedule> {
    return this.schedule({ method: 'GET', path: schedulePath(scheduleId) });
  }

  /** One page of schedules, by id. */
  async listSchedules(query: ListSchedulesRequest = {}): Promise<SchedulePage> {
    const { body } = await this.send({ method: 'GET', path: '/api/v1/schedules', query: { ...query } });
    return schedulePageOf(body as Record<string, unknown>);
  }

  /** Changes a schedule; the service checks the result as a create before it takes effect. */
  async updateSchedule(scheduleId: string, changes: UpdateScheduleRequest): Promise<Schedule> {
    const body = scheduleBody(changes);
    return this.schedule({ method: 'PATCH', path: schedulePath(scheduleId), body });
  }

  /** Pauses a schedule: no run starts until it is resumed. The note is kept with the paused state. */
  async pauseSchedule(scheduleId: string, note?: string): Promise<Schedule> {
    const body = note === undefined ? {} : { note };
    return this.schedule({ method: 'POST', path: schedulePath(scheduleId, 'pause'), body });
  }

  /** Resumes a paused schedule; runs missed while paused do not start. */
  async resumeSchedule(scheduleId: string, note?: string): Promise<Schedule> {
    const body = note === undefined ? {} : { note };
    return this.schedule({ method: 'POST', path: schedulePath(scheduleId, 'resume'), body });
  }

  /** Starts one occurrence now (also when paused); overlap defaults to the service's `allowAll`. */
  async triggerSchedule(scheduleId: string, options: { overlap?: OverlapPolicy } = {}): Promise<Schedule> {
    const body = options.overlap === undefined ? {} : { overlap: options.overlap };
    return this.schedule({ method: 'POST', path: schedulePath(scheduleId, 'trigger'), body });
  }

  /** Starts one occurrence per run time of the spec in a past range, each with its nominal time. */
  async backfillSchedule(scheduleId: string, range: BackfillScheduleRequest): Promise<Schedule> {
    const body = backfillBody(range);
    return this.schedule({ method: 'POST', path: schedulePath(scheduleId, 'backfill'), body });
  }

  /** Deletes a schedule; occurrences already started run on as tasks. */
  async deleteSchedule(scheduleId: string): Promise<void> {
    await this.send({ method: 'DELETE', path: schedulePath(scheduleId) });
  }

  /**
   * Leases up to `max` due tasks of `queues` (`POST /api/v1/leases`), waiting up to `waitSeconds`
   * for the first one; `[]` when none came. The attempt's timeout is at least the wait plus 10 s.
   * `signal` ends the long poll (the service hands back what it leased after the hang-up).
   */
  async lease(request: LeaseRequest, options: { signal?: AbortSignal } = {}): Promise<Lease[]> {
    const timeoutMs = Math.max(this.timeoutMs, (request.waitSeconds ?? 20) * 1000 + LONG_POLL_MARGIN_MS);
    const body = definedOnly({ ...request });
    const answer = await this.send({ method: 'POST', path: '/api/v1/leases', body, timeoutMs, ...options });
    const leases = (answer.body as { leases?: WireLease[] } | undefined)?.leases ?? [];
    return leases.map(leaseOf);
  }

  /** The leased task succeeded (`SUCCEEDED`). */
  async ack(leaseToken: string): Promise<LeaseResult> {
    return this.leaseVerb('ack', { leaseToken });
  }

  /** The leased task failed: retried per its policy (`RUNNING`), or at once `FAILED` when not retryable. */
  async nack(leaseToken: string, request: NackRequest = {}): Promise<LeaseResult> {
    return this.leaseVerb('nack', { leaseToken, ...definedOnly(request) });
  }

  /** Renews the lease for its `leaseSeconds` from now. */
  async extend(leaseToken: string): Promise<ExtendResult> {
    const { leaseExpiresAt } = await this.leaseVerb<{ leaseExpiresAt: string }>('extend', { leaseToken });
    return { leaseExpiresAt: new Date(leaseExpiresAt) };
  }

  /** Hands the task back unhandled: leased again at once, no attempt spent. */
  async release(leaseToken: string): Promise<LeaseResult> {
    return this.leaseVerb('release', { leaseToken });
  }

  private async leaseVerb<T = LeaseResult>(verb: string, body: Record<string, unknown>): Promise<T> {
    const answer = await this.send({ method: 'POST', path: `/api/v1/leases/${verb}`, body });
    return answer.body as T;
  }

  private async schedule(request: Request): Promise<Schedule> {
    const { body } = await this.send(request);
    return scheduleOf(body as Record<string, unknown>);
  }

  private async task(request: Request): Promise<Task> {
    const { body } = await this.send(request);
    return withDates<Task>(body as Record<string, unknown>);
  }

  private async send(request: Request): Promise<{ status: number; body: unknown; requestId?: string }> {
    const url = new URL(this.baseUrl + request.path);
    for (const [key, value] of Object.entries(request.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    const init: RequestInit = {
      method: request.method,
      headers:
        request.body === undefined ? this.headers : { ...this.headers, 'content-type': 'application/json' },
      body: request.body === undefined ? undefined : stringify(request.body),
    };
    for (let attempt = 0; ; attempt++) {
      const retriesLeft = attempt < this.retry.maxRetries;
      let response: Response;
      let text: string;
      try {
        const timeout = AbortSignal.timeout(request.timeoutMs ?? this.timeoutMs);
        const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
        response = await this.fetch(url, { ...init, signal });
        text = await response.text();
      } catch (err) {
        if (request.signal?.aborted) throw request.signal.reason;
        if (retriesLeft) {
          await sleep(this.backoff(attempt));
          continue;
        }
        const reason = err instanceof Error && err.name === 'TimeoutError' ? 'timed out' : 'failed';
        throw new DelayedTaskError(
          'UNAVAILABLE',
          `${request.method} ${request.path} ${reason}`,
          0,
          [],
          undefined,
          {
            cause: err,
          },
        );
      }
      if (response.ok) {
        return {
          status: response.status,
          body: text ? (JSON.parse(text) as unknown) : undefined,
          requestId: response.headers.get('x-request-id') ?? undefined,
        };
      }
      if (retriesLeft && RETRYABLE_STATUS.has(response.status)) {
        await sleep(Math.max(this.backoff(attempt), this.retryAfterMs(response)));
        if (request.signal?.aborted) throw request.signal.reason;
        continue;
      }
      throw errorOf(response, text);
    }
  }

  private backoff(attempt: number): number {
    const ceiling = Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** attempt);
    return Math.random() * ceiling;
  }

  private retryAfterMs(response: Response): number {
    const seconds = Number(response.headers.get('retry-after'));
    return Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds * 1000, this.retry.maxRetryAfterMs) : 0;
  }
}

function errorOf(response: Response, text: string): DelayedTaskError {
  const requestId = response.headers.get('x-request-id') ?? undefined;
  let envelope: unknown;
  try {
    envelope = JSON.parse(text);
  } catch {
    envelope = undefined;
  }
  const error = (envelope as { error?: WireError } | undefined)?.error;
  return apiError(response.status, error, requestId, `HTTP ${response.status}: ${text.slice(0, 200)}`);
}

/** An error body as received: the API's `ErrorBody['error']`, trusted in no field. */
type WireError = { [K in keyof ErrorBody['error']]?: unknown };

/** One entry of the batch response: `{index, status, task}` or `{index, status, error}`. */
interface BatchResultWire {
  index: number;
  status: number;
  task?: Record<string, unknown>;
  error?: WireError;
}

/** The API's `{code, message, details}` (of a response or of one batch item) as the SDK's error. */
function apiError(
  status: number,
  error: WireError | undefined,
  requestId: string | undefined,
  fallback = `HTTP ${status}`,
): DelayedTaskError {
  if (!error || typeof error.code !== 'string') {
    return new DelayedTaskError('UNKNOWN', fallback, status, [], requestId);
  }
  const details = Array.isArray(error.details) ? (error.details as ErrorDetail[]) : [];
  const message = typeof error.message === 'string' ? error.message : error.code;
  return new DelayedTaskError(error.code, message, status, details, requestId);
}

/**
 * The wire body of one create, with a new task id when none is given (a retry then sends the same
 * one); throws INVALID_ARGUMENT (status 0) for what the checks refuse.
 */
function createBody(input: CreateTaskRequest) {
  const { payload, delaySeconds, executeAt, taskId, ...rest } = input;
  checkPayload(payload);
  checkTarget(rest);
  return {
    ...definedOnly(rest),
    payload,
    ...wireWhen({ delaySeconds, executeAt }, true),
    taskId: taskId ?? randomUUID(),
  };
}

function taskPath(taskId: string): string {
  return `/api/v1/tasks/${encodeURIComponent(taskId)}`;
}

/** The object without its undefined fields: bodies carry only what the caller set. */
function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as Partial<T>;
}

function sleep(ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}
