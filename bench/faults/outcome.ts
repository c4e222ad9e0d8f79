/**
 * What a scenario did to the promise: every acknowledged task delivered (not lost), effects not
 * doubled except where at-least-once allows, every duplicate under the same Idempotency-Key.
 */
import { summarize, type Summary } from '../stats.js';
import { sleep } from '../infra/wait.js';
import type { CreatedTask, Load } from './load.js';
import type { Recorder } from './recorder.js';

export interface Outcome {
  id: number | string;
  title: string;
  /** Creates the API acknowledged. */
  created: number;
  /** Creates never acknowledged, even after retrying until the give-up time. */
  unacknowledged: number;
  delivered: number;
  lost: number;
  /** Acknowledged tasks whose final status is not SUCCEEDED (FAILED, or still open at the deadline). */
  notSucceeded: number;
  /** Effects beyond the first per task. */
  duplicates: number;
  duplicatesAllowed: boolean;
  /** Every delivery of a task carried the same Idempotency-Key, equal to its task id. */
  keysStable: boolean;
  createRetries: number;
  /** Creates answered 5xx/429, and the slowest such answer. */
  refusals: number;
  /** How long the API took to answer those. */
  refusalMs: Summary | undefined;
  networkErrors: number;
  /** Due time to first effect, ms. */
  lagMs: Summary | undefined;
  /** From the end of the fault until every task due before it was delivered, s. */
  recoverySeconds: number | undefined;
  notes: string[];
  /** Problems that break the promise; empty when the scenario passed. */
  problems: string[];
}

export interface OutcomeInput {
  id: number | string;
  title: string;
  duplicatesAllowed: boolean;
  load: Load;
  recorder: Recorder;
  faultEndMs: number | undefined;
  notes: string[];
  /** Final statuses of the acknowledged tasks, from the API. */
  statuses: Map<string, string>;
}

export function outcome(input: OutcomeInput): Outcome {
  const { load, recorder } = input;
  const acked = load.tasks.filter((task) => task.ackedMs !== undefined);
  const effects = recorder.effects();
  const lags: number[] = [];
  let duplicates = 0;
  let lost = 0;
  // Why each duplicate happened: the same attempt sent again (its outcome never recorded: a worker or
  // workflow task lost), or a later attempt (the first one failed or timed out, yet had its effect).
  let sameAttempt = 0;
  for (const task of acked) {
    const list = effects.get(task.taskId);
    if (!list || list.length === 0) {
      lost++;
      continue;
    }
    duplicates += list.length - 1;
    sameAttempt += list.length - new Set(list.map((d) => d.attempt)).size;
    lags.push(Math.min(...list.map((d) => d.arrivedMs)) - task.dueMs);
  }
  const keysStable = recorder.deliveries.every((d) => d.idempotencyKey === d.taskId);
  const notSucceeded = acked.filter((task) => input.statuses.get(task.taskId) !== 'SUCCEEDED').length;
  const problems: string[] = [];
  if (lost > 0) problems.push(`${lost} task(s) lost`);
  if (notSucceeded > 0) problems.push(`${notSucceeded} task(s) not SUCCEEDED`);
  if (load.tasks.length - acked.length > 0)
    problems.push(`${load.tasks.length - acked.length} create(s) never acknowledged`);
  if (!keysStable) problems.push('a delivery carried another Idempotency-Key');
  if (duplicates > 0 && !input.duplicatesAllowed)
    problems.push(`${duplicates} duplicate effect(s) where none is allowed`);
  if (load.otherErrors.length > 0) problems.push(`4xx on create: ${load.otherErrors.slice(0, 3).join('; ')}`);
  return {
    id: input.id,
    title: input.title,
    created: acked.length,
    unacknowledged: load.tasks.length - acked.length,
    delivered: acked.length - lost,
    lost,
    notSucceeded,
    duplicates,
    duplicatesAllowed: input.duplicatesAllowed,
    keysStable,
    createRetries: load.retries,
    refusals: load.refusals.length,
    refusalMs: summarize(load.refusals.map((r) => r.elapsedMs)),
    networkErrors: load.networkErrors,
    lagMs: summarize(lags),
    recoverySeconds: recovery(acked, effects, input.faultEndMs),
    notes:
      duplicates > 0
        ? [
            ...input.notes,
            `duplicates: ${sameAttempt} repeated the same attempt, ${duplicates - sameAttempt} came from a later attempt`,
          ]
        : input.notes,
    problems,
  };
}

function recovery(
  acked: readonly CreatedTask[],
  effects: Map<string, { arrivedMs: number }[]>,
  faultEndMs: number | undefined,
): number | undefined {
  if (faultEndMs === undefined) return undefined;
  let latest = faultEndMs;
  for (const task of acked) {
    if (task.dueMs > faultEndMs) continue;
    const first = effects.get(task.taskId)?.reduce((min, d) => Math.min(min, d.arrivedMs), Infinity);
    if (first !== undefined && Number.isFinite(first)) latest = Math.max(latest, first);
  }
  return (latest - faultEndMs) / 1000;
}

/**
 * Waits until every acknowledged task has its effect, its final status from the API, and the
 * receiver has no request in hand (a late answer may still add an effect), or until `deadlineMs`.
 * Returns the status of each acknowledged task as the API last answered it.
 */
export async function settle(
  apiUrl: () => string,
  load: Load,
  recorder: Recorder,
  deadlineMs: number,
): Promise<Map<string, string>> {
  const statuses = new Map<string, string>();
  const acked = load.tasks.filter((task) => task.ackedMs !== undefined);
  const final = new Set(['SUCCEEDED', 'FAILED', 'CANCELLED']);
  for (let round = 0; Date.now() < deadlineMs; round++) {
    const effects = recorder.effects();
    // Many open tasks: read their statuses a page of a thousand at a time from the list (one
    // visibility read) instead of one status query each (a replay of the task's history each).
    const unread = acked.filter((task) => !final.has(statuses.get(task.taskId) ?? '')).length;
    if (unread > 100) await readListedStatuses(apiUrl, load.idPrefix, statuses, deadlineMs);
    // Delivered tasks every round; every tenth round also the overdue ones, to see any that FAILED.
    const open = acked.filter(
      (task) =>
        !final.has(statuses.get(task.taskId) ?? '') &&
        (effects.has(task.taskId) || (round % 10 === 0 && task.dueMs < Date.now())),
    );
    for (let i = 0; i < open.length; i += 16) {
      await Promise.all(
        open.slice(i, i + 16).map(async (task) => {
          const res = await fetch(`${apiUrl()}/api/v1/tasks/${encodeURIComponent(task.taskId)}`, {
            signal: AbortSignal.timeout(10_000),
          }).catch(() => undefined);
          if (res?.ok) statuses.set(task.taskId, ((await res.json()) as { status: string }).status);
        }),
      );
    }
    const done = acked.every((task) => final.has(statuses.get(task.taskId) ?? ''));
    if (done && recorder.inFlight === 0) break;
    await sleep(1_000);
  }
  return statuses;
}

/** Records the status of every listed task of the load, following pages until the last or the deadline. */
async function readListedStatuses(
  apiUrl: () => string,
  idPrefix: string,
  statuses: Map<string, string>,
  deadlineMs: number,
): Promise<void> {
  let pageToken: string | null = null;
  do {
    const query = new URLSearchParams({ pageSize: '1000', idPrefix });
    if (pageToken) query.set('pageToken', pageToken);
    const res = await fetch(`${apiUrl()}/api/v1/tasks?${query.toString()}`, {
      signal: AbortSignal.timeout(30_000),
    }).catch(() => undefined);
    if (!res?.ok) return;
    const page = (await res.json()) as {
      tasks: { taskId: string; status: string }[];
      nextPageToken: string | null;
    };
    for (const task of page.tasks) statuses.set(task.taskId, task.status);
    pageToken = page.nextPageToken;
  } while (pageToken && Date.now() < deadlineMs);
}

/** Waits until the acknowledged tasks have settled (`settle`), then judges the scenario. */
export async function settleAndJudge(
  input: Omit<OutcomeInput, 'statuses'>,
  apiUrl: () => string,
  deadlineMs: number,
): Promise<Outcome> {
  const statuses = await settle(apiUrl, input.load, input.recorder, deadlineMs);
  return outcome({ ...input, statuses });
}
