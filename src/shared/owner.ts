/**
 * Owners: the team or service a task belongs to (the owner of the API key that created it).
 * Pure and workflow-safe: the workflow id of a task is derived from its owner and task id here.
 */

/** Owner of every task when authentication is off, and of tasks created before owners existed. */
export const DEFAULT_OWNER = 'default';

/** Owner names: lower-case, no `/` (the separator in workflow ids). */
export const OWNER_PATTERN = '^[a-z0-9][a-z0-9._-]{0,63}$';

/**
 * Workflow id of a task: the task id for owner `default` (so tasks created before owners keep their
 * ids), `<owner>/<taskId>` for any other owner. A task id cannot contain `/`, so ids never collide.
 */
export function workflowIdOf(owner: string, taskId: string): string {
  return owner === DEFAULT_OWNER ? taskId : `${owner}/${taskId}`;
}

/**
 * The `Idempotency-Key` of a task's callbacks: unique across owners, so two owners' tasks of the same
 * id are two effects at a shared receiver. The workflow id: the bare task id for owner `default`
 * (today's key, unchanged), `<owner>/<taskId>` for any other owner.
 */
export const idempotencyKeyOf = workflowIdOf;

/** Owner and client task id of a workflow id (the inverse of `workflowIdOf`). */
export function parseWorkflowId(workflowId: string): { owner: string; taskId: string } {
  const slash = workflowId.indexOf('/');
  if (slash === -1) return { owner: DEFAULT_OWNER, taskId: workflowId };
  return { owner: workflowId.slice(0, slash), taskId: workflowId.slice(slash + 1) };
}
