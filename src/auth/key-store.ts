/**
 * The API keys in force: loaded from the keys file at boot (a bad file stops the start), re-read on
 * SIGHUP and when the file changes. A bad new file is refused with a log line and the keys in force
 * stay; a good one replaces them at once.
 */
import { readFileSync, unwatchFile, watchFile, type Stats } from 'node:fs';
import type { Logger } from '../observability/logger.js';
import {
  bearerToken,
  KEY_PREFIX,
  keyMatches,
  KeysFileError,
  parseKey,
  validateKeysFile,
  type KeyEntry,
} from './keys.js';
import type { Principal } from './principal.js';

/** Why a presented credential was refused: for the audit log only; the client sees one answer. */
export type AuthFailure = 'missing' | 'malformed' | 'unknown' | 'expired' | 'disabled';

export type AuthResult =
  { ok: true; principal: Principal } | { ok: false; reason: AuthFailure; keyId: string | undefined };

// Compared against when the key id is unknown, so that an unknown id costs what a wrong secret costs.
const DUMMY_HASH = `sha256:${'0'.repeat(64)}`;

/** One version of the keys file, indexed by key id. */
export class KeyRing {
  private readonly byId: ReadonlyMap<string, KeyEntry>;

  constructor(readonly entries: readonly KeyEntry[]) {
    this.byId = new Map(entries.map((entry) => [entry.id, entry]));
  }

  get size(): number {
    return this.byId.size;
  }

  /** Checks an `Authorization` header value against the keys. */
  authenticate(authorization: string | undefined, now: number): AuthResult {
    if (authorization === undefined || authorization === '') {
      return { ok: false, reason: 'missing', keyId: undefined };
    }
    const key = bearerToken(authorization);
    const parsed = key.startsWith(`${KEY_PREFIX}_`) ? parseKey(key) : undefined;
    if (!parsed) return { ok: false, reason: 'malformed', keyId: undefined };
    const entry = this.byId.get(parsed.keyId);
    if (!keyMatches(key, entry?.hash ?? DUMMY_HASH) || !entry) {
      return { ok: false, reason: 'unknown', keyId: parsed.keyId };
    }
    return this.admit(entry, now);
  }

  /** The entry of `keyId`, e.g. for a console session that names its key but holds no secret. */
  entry(keyId: string): KeyEntry | undefined {
    return this.byId.get(keyId);
  }

  /** Whether a known key may act now (not disabled, not expired), and as whom. */
  admit(entry: KeyEntry, now: number): AuthResult {
    if (entry.disabled) return { ok: false, reason: 'disabled', keyId: entry.id };
    if (entry.expiresAt !== undefined && Date.parse(entry.expiresAt) <= now) {
      return { ok: false, reason: 'expired', keyId: entry.id };
    }
    return {
      ok: true,
      principal: {
        keyId: entry.id,
        owner: entry.owner,
        scopes: entry.scopes,
        allowedTaskTypes: entry.allowedTaskTypes,
        allowedCallbackHosts: entry.allowedCallbackHosts,
        requestsPerMinute: entry.requestsPerMinute,
      },
    };
  }
}

/** Reads and validates a keys file; throws KeysFileError with the path and every bad field. */
export function readKeysFile(path: string): KeyRing {
  let document: unknown;
  try {
    document = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new KeysFileError(`cannot read API keys from ${path}: ${(err as Error).message}`, { cause: err });
  }
  try {
    return new KeyRing(validateKeysFile(document).keys);
  } catch (err) {
    throw new KeysFileError(`${path}: ${(err as Error).message}`, { cause: err });
  }
}

export class KeyStore {
  private ring: KeyRing;
  private watching = false;

  /** Loads the file; a bad file throws, so the API does not start on it. */
  constructor(
    readonly path: string,
    private readonly logger: Logger,
  ) {
    this.ring = readKeysFile(path);
  }

  /** The keys in force now. */
  get current(): KeyRing {
    return this.ring;
  }

  authenticate(authorization: string | undefined, now = Date.now()): AuthResult {
    return this.ring.authenticate(authorization, now);
  }

  /** Re-reads the file; on any problem logs it and keeps the keys in force. True when replaced. */
  reload(trigger: string): boolean {
    try {
      this.ring = readKeysFile(this.path);
      this.logger.info({ trigger, keys: this.ring.size, path: this.path }, 'API keys reloaded');
      return true;
    } catch (err) {
      this.logger.error(
        { trigger, path: this.path, error: (err as Error).message, keys: this.ring.size },
        'API keys file refused; the keys in force stay',
      );
      return false;
    }
  }

  /** Re-reads the file whenever its modification time or size changes, checked every `intervalMs`. */
  watch(intervalMs: number): void {
    if (intervalMs <= 0 || this.watching) return;
    this.watching = true;
    watchFile(this.path, { interval: intervalMs, persistent: false }, (now: Stats, before: Stats) => {
      if (now.mtimeMs !== before.mtimeMs || now.size !== before.size || now.ino !== before.ino) {
        this.reload('file change');
      }
    });
  }

  close(): void {
    if (this.watching) unwatchFile(this.path);
    this.watching = false;
  }
}
