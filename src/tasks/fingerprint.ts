/**
 * What makes two creates of one task id the same task: the one fingerprint recipe. A create stores it
 * in the workflow's memo (`specHash`); a repeat of the create is idempotent when its fingerprint
 * matches, a conflict when not. Replays and the legacy start-delay cancel start workflows with it too.
 */
import { createHash } from 'node:crypto';
import type { TaskSpec } from '../shared/task.js';

/**
 * Every field of the workflow input, and whether a create's fingerprint covers it: `true`, or why
 * not. A new `TaskSpec` field does not compile until it is placed here. Changing a `true` changes
 * the fingerprint of every task already stored: a repeat of an old create would then answer 409.
 */
export const FINGERPRINT_FIELDS = {
  taskType: true,
  payload: true,
  payloadVersion: true,
  /** Covered as the caller asked for it (`when`): `delaySeconds` or `executeAt`. */
  executeAt: true,
  callbackUrl: true,
  /** Absent (a callback task) leaves every fingerprint stored before delivery targets as it was. */
  delivery: true,
  maxRetries: true,
  timeoutMs: true,
  traceId: true,
  priority: true,
  taskId: 'the fingerprint is compared under the task id',
  owner: 'the owner is part of the workflow id the fingerprint is compared under',
  createdAt: 'differs on every create',
  idempotencyKey: 'derived from owner and task id',
  callbackTaskQueue: 'routing: the server decides it from the type policy',
  deliveryTaskQueue: 'routing: the server decides it from the owner and the pull queue',
  localCallback: 'routing: the server decides it from the type policy',
  retryPolicy: 'the type policy, not asked for by the caller',
  schedule: 'set by the schedule whose occurrence the task is, not by a create',
} as const satisfies Record<keyof TaskSpec, true | string>;

type Covered = {
  [K in keyof typeof FINGERPRINT_FIELDS]: (typeof FINGERPRINT_FIELDS)[K] extends true ? K : never;
}[keyof typeof FINGERPRINT_FIELDS];

/** When the caller asked the task to run: a retried create with `delaySeconds` computes a later `executeAt`. */
export type AskedWhen = { delaySeconds: number } | { executeAt: string };

/** The fingerprint of a task input; `when` is what the caller asked for (by default its `executeAt`). */
export function fingerprintOf(spec: Pick<TaskSpec, Covered>, when?: AskedWhen): string {
  const covered: Record<string, unknown> = {};
  for (const [field, isCovered] of Object.entries(FINGERPRINT_FIELDS)) {
    if (isCovered === true && field !== 'executeAt') covered[field] = spec[field as Covered];
  }
  return digest({ ...covered, when: when ?? { executeAt: spec.executeAt } });
}

/** sha256 of canonical JSON (object keys sorted), so key order does not change the fingerprint. */
export function digest(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, child]) => child !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, child]) => `${JSON.stringify(key)}:${canonicalJson(child)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
