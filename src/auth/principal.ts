/**
 * Who is calling: the owner an API key acts for, its scopes and its limits. Authentication
 * (src/api/auth.ts) turns a request into a Principal; the routes and the task service ask it.
 */
import { ApiError, ErrorCode, taskNotFound } from '../errors/catalog.js';
import { hostMatches } from '../security/address-rules.js';
import { DEFAULT_OWNER } from '../shared/owner.js';

/**
 * `tasks:write`: create, cancel, reschedule, replay one. `tasks:read`: get, list. `schedules:write`:
 * create, update, pause, resume, trigger, backfill, delete a schedule (whose occurrences are tasks of
 * the owner, checked against the key's task types and hosts). `schedules:read`: get, list schedules.
 * `tasks:lease`: lease the owner's pull queues and ack, nack, extend or release those leases.
 * `codec`: the codec
 * endpoint, which decrypts the payloads of every owner (for the Web UI and the CLI; grant it to
 * operators only). `admin`: everything, every owner.
 */
export const SCOPES = [
  'tasks:read',
  'tasks:write',
  'tasks:lease',
  'schedules:read',
  'schedules:write',
  'codec',
  'admin',
] as const;
export type Scope = (typeof SCOPES)[number];

export interface Principal {
  /** Id of the API key; null when authentication is off. */
  keyId: string | null;
  owner: string;
  scopes: readonly Scope[];
  /** Task types the key may act on: exact names or prefixes ending in `*`; undefined: any. */
  allowedTaskTypes: readonly string[] | undefined;
  /** Callback hosts the key may create tasks for: exact names or `*.domain`; undefined: any. */
  allowedCallbackHosts: readonly string[] | undefined;
  /** The key's own request rate; undefined: the configured default. */
  requestsPerMinute: number | undefined;
}

/** Every request when authentication is off: owner `default`, every scope, no limits. */
export const ANONYMOUS: Principal = Object.freeze({
  keyId: null,
  owner: DEFAULT_OWNER,
  scopes: SCOPES,
  allowedTaskTypes: undefined,
  allowedCallbackHosts: undefined,
  requestsPerMinute: undefined,
});

/** `admin` holds every scope. */
export function hasScope(principal: Pick<Principal, 'scopes'>, scope: Scope): boolean {
  return principal.scopes.includes(scope) || principal.scopes.includes('admin');
}

/** `order.close` matches itself; `order.*` matches every type starting with `order.`. */
export function taskTypeMatches(taskType: string, pattern: string): boolean {
  return pattern.endsWith('*') ? taskType.startsWith(pattern.slice(0, -1)) : taskType === pattern;
}

/** What a task service call may touch: the owner addressed and the key's restrictions. */
export type TaskAccess = Pick<Principal, 'owner' | 'allowedTaskTypes' | 'allowedCallbackHosts'>;

/** Access to the tasks of `owner` with no restrictions (authentication off, or tests). */
export function ownerAccess(owner: string = DEFAULT_OWNER): TaskAccess {
  return { owner, allowedTaskTypes: undefined, allowedCallbackHosts: undefined };
}

export function permissionDenied(field: string, reason: string): ApiError {
  return new ApiError(ErrorCode.PermissionDenied, `this API key may not do this: ${field} ${reason}`, [
    { field, reason },
  ]);
}

/** Whether `access` may see or act on `task` (`checkTaskAccess` without the refusal). */
export function mayAccess(
  access: TaskAccess,
  task: { taskType: string; callbackUrl?: string | undefined },
): boolean {
  try {
    checkTaskAccess(access, task);
    return true;
  } catch {
    return false;
  }
}

/**
 * Throws 403 PERMISSION_DENIED naming the field when the key may not use this task type or callback.
 * For what a caller asks to create (the type and URL are its own); an existing task the key may not
 * reach answers as absent instead (`readableTask`).
 */
export function checkTaskAccess(
  access: TaskAccess,
  /** The callback's host when the caller has parsed it already (a create), else its URL. */
  task: { taskType: string; callbackUrl?: string | undefined; callbackHost?: string },
): void {
  const types = access.allowedTaskTypes;
  if (types && !types.some((pattern) => taskTypeMatches(task.taskType, pattern))) {
    throw permissionDenied('taskType', `${task.taskType} is not among this key's task types`);
  }
  const hosts = access.allowedCallbackHosts;
  if (hosts && (task.callbackHost !== undefined || task.callbackUrl !== undefined)) {
    const hostname =
      task.callbackHost ??
      (task.callbackUrl !== undefined && URL.canParse(task.callbackUrl)
        ? new URL(task.callbackUrl).hostname
        : '');
    if (!hosts.some((host) => hostMatches(hostname, host))) {
      throw permissionDenied('callbackUrl', `host ${hostname} is not among this key's callback hosts`);
    }
  }
}

/**
 * Whether `access` may see an existing task: the one rule of every read, the API's and the console's.
 * A task whose callback URL is unknown (a list summary without it) is hidden from a host-limited key.
 */
function maySee(access: TaskAccess, task: { taskType: string; callbackUrl?: string | null }): boolean {
  return mayAccess(access, { taskType: task.taskType, callbackUrl: task.callbackUrl ?? '' });
}

/** The tasks of a page that `access` may see (every list, the API's and the console's). */
export function visibleTasks<T extends { taskType: string; callbackUrl?: string | null }>(
  access: TaskAccess,
  tasks: readonly T[],
): T[] {
  return tasks.filter((task) => maySee(access, task));
}

/**
 * `task` when `access` may read it; otherwise the answer of an absent task (404 TASK_NOT_FOUND), so a
 * key learns nothing of its owner's tasks outside its task types and callback hosts, not even that
 * they exist. The console reads every task through it.
 */
export function readableTask<T extends { taskId: string; taskType: string; callbackUrl?: string }>(
  access: TaskAccess,
  task: T,
): T {
  if (!maySee(access, task)) throw taskNotFound(task.taskId);
  return task;
}

/**
 * What counts through visibility may include for `access`: the key's task-type patterns (undefined:
 * every type), or undefined as a whole when the key is limited to callback hosts, which visibility
 * cannot count by (such a key gets no counts).
 */
export function countableTypes(access: TaskAccess): { taskTypes: readonly string[] | undefined } | undefined {
  if (access.allowedCallbackHosts) return undefined;
  return { taskTypes: access.allowedTaskTypes };
}

/**
 * 403 unless a bulk operation over `taskType` (every type when undefined) stays within the key's
 * limits: a batch cannot select by callback host, so a host-limited key may not start one, and a
 * type-limited key names one of its types.
 */
export function checkBulkAccess(access: TaskAccess, taskType: string | undefined): void {
  if (access.allowedCallbackHosts) {
    throw permissionDenied('callbackUrl', "a bulk operation cannot keep to this key's callback hosts");
  }
  if (access.allowedTaskTypes && taskType === undefined) {
    throw permissionDenied('taskType', 'is required: this key is limited to some task types');
  }
  if (taskType !== undefined) checkTaskAccess(access, { taskType });
}

/**
 * The owner a call addresses: the key's own, or for an admin key the one asked for. A non-admin key
 * naming another owner is refused.
 */
export function accessFor(principal: Principal, owner: string | undefined): TaskAccess {
  if (owner === undefined || owner === principal.owner) return principal;
  if (!principal.scopes.includes('admin')) {
    throw permissionDenied('owner', 'may name another owner only with an admin key');
  }
  return { ...principal, owner };
}

/** Owner filter of a list: an admin key without `owner` sees every owner. */
export function listOwner(principal: Principal, owner: string | undefined): string | undefined {
  if (owner === undefined) return principal.scopes.includes('admin') ? undefined : principal.owner;
  return accessFor(principal, owner).owner;
}
