/**
 * Batch create: each item of `POST /api/v1/tasks/batch` goes through exactly what a single create
 * of it goes through (number check, the create body's JSON Schema, TaskCommands.prepare and commit),
 * and gets its own answer. Items run concurrently up to a bound; items with the same taskId run in
 * request order, so the second one is an idempotent repeat or a conflict.
 */
import type { TaskAccess } from '../auth/principal.js';
import { createAjv, toFieldProblems } from '../validation/json-schema.js';
import { ApiError, ErrorCode, schemaViolation } from '../errors/catalog.js';
import { checkNumbers } from '../http/json-body.js';
import { CreateTaskBodySchema, type CreateTaskBody } from '../contract/tasks.js';
import type { CreateResult, TaskCommands } from '../tasks/commands.js';
import { toApiError } from '../temporal/errors.js';

/** Items of one request being prepared or started at once. */
export const BATCH_CREATE_CONCURRENCY = 16;
/**
 * Batch items being started at once in this API process, over all requests. Beyond what Temporal
 * absorbs, more only queue there, where the call's deadline runs: items wait here instead.
 */
const BATCH_STARTS_PER_PROCESS = 32;

/** A counting semaphore: `run` waits for one of `limit` slots. */
class Slots {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(limit: number) {
    this.free = limit;
  }

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    }
  }
}

const startSlots = new Slots(BATCH_STARTS_PER_PROCESS);

/** The single-create body's schema, compiled with the options the API validates bodies with. */
const validateItem = createAjv().compile<CreateTaskBody>(CreateTaskBodySchema);

export type ItemOutcome =
  { index: number; item: unknown; result: CreateResult } | { index: number; item: unknown; error: ApiError };

/**
 * Creates every item for `access`, in request order as far as same-id items are concerned.
 * When an item finds Temporal unreachable before any item of the request has reached it, the items
 * that have not tried yet answer 503 at once rather than each waiting out the deadline (like every
 * 503 item, they created nothing). Once Temporal has answered an item, an overloaded server's
 * timeout on one item does not fail the others: each has its own deadline.
 */
export async function createBatch(
  tasks: Pick<TaskCommands, 'prepare' | 'commit'>,
  access: TaskAccess,
  items: readonly unknown[],
  concurrency = BATCH_CREATE_CONCURRENCY,
): Promise<ItemOutcome[]> {
  const done: (() => void)[] = [];
  const settled = items.map(() => new Promise<void>((resolve) => done.push(resolve)));
  // Item i waits for the item before it with the same taskId.
  const lastOfId = new Map<string, number>();
  const before = items.map((item, i) => {
    const taskId = (item as { taskId?: unknown } | null)?.taskId;
    if (typeof taskId !== 'string') return undefined;
    const previous = lastOfId.get(taskId);
    lastOfId.set(taskId, i);
    return previous;
  });
  let unavailable: ApiError | undefined;
  let reached = false;

  const createOne = async (i: number): Promise<CreateResult> => {
    const item = items[i];
    checkNumbers(item);
    if (!validateItem(item)) throw schemaViolation(toFieldProblems(validateItem.errors));
    const prepared = await tasks.prepare(access, item);
    const previous = before[i];
    if (previous !== undefined) await settled[previous];
    try {
      const result = await startSlots.run(() => {
        if (unavailable) throw unavailable; // the first item's answer, cause and all
        return tasks.commit(prepared);
      });
      reached = true;
      return result;
    } catch (err) {
      if (err instanceof ApiError && err.code === ErrorCode.Unavailable) {
        if (!reached) unavailable ??= err;
      } else reached = true;
      throw err;
    }
  };

  const outcomes: ItemOutcome[] = new Array(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      try {
        outcomes[i] = { index: i, item: items[i], result: await createOne(i) };
      } catch (err) {
        outcomes[i] = { index: i, item: items[i], error: toApiError(err) };
      } finally {
        done[i]!();
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return outcomes;
}
