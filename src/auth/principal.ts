/**
 * Who is calling: the owner an API key acts for, its scopes and its limits. Authentication
 * (src/api/auth.ts) turns a request into a Principal; the routes and the task service ask it.
 */
import { ApiError, ErrorCode } from '../errors/catalog.js';
import { hostMatches } from '../security/address-rules.js';
import { DEFAULT_OWNER } from '../shared/owner.js';

/**
 * `tasks:write`: create, cancel, reschedule, replay one. `tasks:read`: get, list. `schedules:write`:
 * create, update, pause, resume, trigger, backfill, delete a schedule (whose occurrences are tasks of
 * the owner, checked against the key's task types and hosts). `schedules:read`: get, list schedules.
 * `codec`: the codec
 * endpoint, which decrypts the payloads of every owner (for the Web UI and the CLI; grant it to
 * operators only). `admin`: everything, every owner.
 */
export const SCOPES = [
  'tasks:read',
  'tasks:write',
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

/** Throws 403 PERMISSION_DENIED naming the field when the key may not use this task type or callback. */
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
