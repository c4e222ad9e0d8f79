/**
 * `RedisIdempotencyStore` (`@delayed-tasks/sdk/redis`): the claims of a fleet in Redis through
 * ioredis, an optional peer dependency that only this entry point needs. One round trip per call:
 * `SET NX PX` (or the value found) in one script for a claim, `SET PX` for complete, a
 * compare-and-delete script for release (conformance/stores/README.md).
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Redis, Cluster } from 'ioredis';
import {
  ClaimResult,
  DEFAULT_CLAIM_TTL_MS,
  DEFAULT_DONE_TTL_MS,
  type Claim,
  type IdempotencyStore,
} from '../receive/idempotency.js';

export interface RedisIdempotencyStoreOptions {
  /** Prefix of every key. @defaultValue 'delayed-tasks:idem:' */
  namespace?: string;
  /** @defaultValue 300000 (5 minutes) */
  claimTtlMs?: number;
  /** @defaultValue 604800000 (7 days) */
  doneTtlMs?: number;
}

/** Sets the claim when the key is free, else answers what holds it: nil (claimed) or the value. */
const CLAIM = `if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return nil end
return redis.call('GET', KEYS[1]) or 'claimed:'`;
/** Deletes the key only while it still holds this claim. */
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

const sha1 = (script: string) => createHash('sha1').update(script).digest('hex');
const SCRIPTS = { claim: { text: CLAIM, sha: sha1(CLAIM) }, release: { text: RELEASE, sha: sha1(RELEASE) } };

/** A key longer than this many bytes is stored as its SHA-256 hex. */
const MAX_KEY_BYTES = 200;

export class RedisIdempotencyStore implements IdempotencyStore {
  private readonly namespace: string;
  private readonly claimTtlMs: number;
  private readonly doneTtlMs: number;

  /** `redis`: your ioredis client (or cluster); the store never closes it. */
  constructor(
    private readonly redis: Redis | Cluster,
    options: RedisIdempotencyStoreOptions = {},
  ) {
    this.namespace = options.namespace ?? 'delayed-tasks:idem:';
    this.claimTtlMs = options.claimTtlMs ?? DEFAULT_CLAIM_TTL_MS;
    this.doneTtlMs = options.doneTtlMs ?? DEFAULT_DONE_TTL_MS;
  }

  async claim(key: string, claimTtlMs = this.claimTtlMs): Promise<Claim> {
    const token = randomUUID();
    const found = await this.script('claim', this.key(key), `claimed:${token}`, Math.ceil(claimTtlMs));
    if (found === null) return { result: ClaimResult.CLAIMED, token };
    return { result: found === 'done' ? ClaimResult.DONE : ClaimResult.IN_PROGRESS };
  }

  async complete(key: string): Promise<void> {
    await this.redis.set(this.key(key), 'done', 'PX', Math.ceil(this.doneTtlMs));
  }

  async release(key: string, token: string): Promise<void> {
    await this.script('release', this.key(key), `claimed:${token}`);
  }

  /** The stored key: namespaced, and bounded (a long key by its SHA-256, still unique). */
  private key(key: string): string {
    const bounded =
      Buffer.byteLength(key) > MAX_KEY_BYTES ? createHash('sha256').update(key).digest('hex') : key;
    return this.namespace + bounded;
  }

  /** EVALSHA, loading the script with EVAL the first time a server lacks it. */
  private async script(name: keyof typeof SCRIPTS, key: string, ...args: Array<string | number>) {
    const { text, sha } = SCRIPTS[name];
    try {
      return (await this.redis.evalsha(sha, 1, key, ...args)) as string | null;
    } catch (err) {
      if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
      return (await this.redis.eval(text, 1, key, ...args)) as string | null;
    }
  }
}
