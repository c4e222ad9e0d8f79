/**
 * Idempotency by a key the service signs or hands out: the `webhook-id` that
 * `WebhookVerifier.verify` returns, or a leased task's `idempotencyKey` (the same on every attempt
 * of a task, after a replay and a reset). The contract, the same in every SDK, is
 * conformance/stores/README.md: claim before the effect, complete after it, release when it failed.
 */
import { randomUUID } from 'node:crypto';

/** What a claim found: run the effect, answer "retry later", or answer "duplicate". */
export const ClaimResult = {
  /** The caller holds the key: it runs the effect, then completes or releases. */
  CLAIMED: 'CLAIMED',
  /** Another holder's claim is alive: retry later. */
  IN_PROGRESS: 'IN_PROGRESS',
  /** Done before: run nothing. */
  DONE: 'DONE',
} as const;
export type ClaimResult = (typeof ClaimResult)[keyof typeof ClaimResult];

export interface Claim {
  result: ClaimResult;
  /** Present when `CLAIMED`: what `release` needs, so that only this claim is dropped. */
  token?: string;
}

/** A claim's lifetime unless the store or the call says otherwise: 5 minutes. */
export const DEFAULT_CLAIM_TTL_MS = 5 * 60_000;
/** How long a completed key is remembered unless the store says otherwise: 7 days. */
export const DEFAULT_DONE_TTL_MS = 7 * 24 * 3600_000;

/**
 * Where keys are claimed and marked done. Share one (`RedisIdempotencyStore` from
 * `@delayed-tasks/sdk/redis`, `SqlIdempotencyStore` from `@delayed-tasks/sdk/pg`) between
 * receivers or workers: exactly one of any number of concurrent claims of a key is `CLAIMED`.
 */
export interface IdempotencyStore {
  /** Claims `key` for `claimTtlMs` (the store's default when omitted); a claim not completed nor released by then expires. */
  claim(key: string, claimTtlMs?: number): Promise<Claim>;
  /** Marks `key` done: every later claim is `DONE` (for the store's done TTL). */
  complete(key: string): Promise<void>;
  /** Drops this claim of `key`, and only this one (a claim that expired and was taken again stays). */
  release(key: string, token: string): Promise<void>;
}

export interface InMemoryIdempotencyStoreOptions {
  /** Keys kept (the oldest are forgotten first). @defaultValue 100000 */
  maxKeys?: number;
  /** @defaultValue 300000 (5 minutes) */
  claimTtlMs?: number;
  /** @defaultValue 604800000 (7 days) */
  doneTtlMs?: number;
  /** The clock, for tests. @defaultValue Date.now */
  now?: () => number;
}

interface Entry {
  state: 'claimed' | 'done';
  token?: string;
  expiresAt: number;
}

/** The store of one process: claims and done keys in a map of at most `maxKeys`. */
export class InMemoryIdempotencyStore implements IdempotencyStore {
  private readonly entries = new Map<string, Entry>();
  private readonly maxKeys: number;
  private readonly claimTtlMs: number;
  private readonly doneTtlMs: number;
  private readonly now: () => number;

  /** `options` may still be the `maxKeys` number of 0.3. */
  constructor(options: InMemoryIdempotencyStoreOptions | number = {}) {
    if (typeof options === 'number') options = { maxKeys: options };
    this.maxKeys = options.maxKeys ?? 100_000;
    this.claimTtlMs = options.claimTtlMs ?? DEFAULT_CLAIM_TTL_MS;
    this.doneTtlMs = options.doneTtlMs ?? DEFAULT_DONE_TTL_MS;
    this.now = options.now ?? Date.now;
  }

  claim(key: string, claimTtlMs = this.claimTtlMs): Promise<Claim> {
    const now = this.now();
    const entry = this.entries.get(key);
    if (entry && entry.expiresAt > now) {
      return Promise.resolve({ result: entry.state === 'done' ? ClaimResult.DONE : ClaimResult.IN_PROGRESS });
    }
    const token = randomUUID();
    this.set(key, { state: 'claimed', token, expiresAt: now + claimTtlMs });
    return Promise.resolve({ result: ClaimResult.CLAIMED, token });
  }

  complete(key: string): Promise<void> {
    this.set(key, { state: 'done', expiresAt: this.now() + this.doneTtlMs });
    return Promise.resolve();
  }

  release(key: string, token: string): Promise<void> {
    const entry = this.entries.get(key);
    if (entry?.state === 'claimed' && entry.token === token) this.entries.delete(key);
    return Promise.resolve();
  }

  private set(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.entries.set(key, entry);
    if (this.entries.size > this.maxKeys) this.entries.delete(this.entries.keys().next().value as string);
  }
}

/** What `once` did: ran the handler, found the key done, or found it claimed by another holder. */
export type OnceOutcome = 'handled' | 'duplicate' | 'in_progress';

/**
 * Runs `handler` once per `key` (a verified `webhook-id` or a task's `idempotencyKey`): claims the
 * key, runs, completes; releases the claim when `handler` throws (and rethrows). No key: runs.
 */
export async function once(
  store: IdempotencyStore,
  key: string | undefined,
  handler: () => Promise<void> | void,
): Promise<OnceOutcome> {
  if (!key) {
    await handler();
    return 'handled';
  }
  const claim = await store.claim(key);
  if (claim.result === ClaimResult.DONE) return 'duplicate';
  if (claim.result === ClaimResult.IN_PROGRESS) return 'in_progress';
  try {
    await handler();
  } catch (err) {
    // A release that fails leaves the claim to expire after its TTL; the handler's error is the news.
    await store.release(key, claim.token ?? '').catch(() => undefined);
    throw err;
  }
  await store.complete(key);
  return 'handled';
}
