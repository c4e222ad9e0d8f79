/**
 * Console sessions as signed, expiring cookies, so that any API process holding the same secret
 * accepts a session another one made (several processes behind one load balancer). The cookie
 * names the API key (its id, never its secret) and the expiry; its HMAC-SHA256 also covers the
 * key's stored hash, so a key re-minted under its id ends the sessions of the old one. Each session
 * has an id and an issue time: logging out revokes the id (`RevokedSessions`, in the process that
 * served the logout), and disabling or re-enabling a key ends every session issued before
 * (`sessionsNotBefore` in the keys file), so re-enabling a key never revives an old cookie.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const VERSION = 'v1';

export interface SessionClaims {
  keyId: string;
  /** Epoch milliseconds; a session is refused from then on. */
  expiresAt: number;
  /** Random id, revoked by logging out; empty in cookies signed before sessions had one. */
  sessionId: string;
  /** Epoch milliseconds of the login; 0 in cookies signed before sessions had one. */
  issuedAt: number;
}

/** A new session's claims: a random id, issued now. */
export function newSession(keyId: string, now: number, ttlMs: number): SessionClaims {
  return { keyId, expiresAt: now + ttlMs, sessionId: randomBytes(16).toString('base64url'), issuedAt: now };
}

/**
 * Session ids logged out, kept until the session would have expired anyway. In memory: another API
 * process behind the same load balancer does not know of a logout it did not serve (a stolen copy
 * of the cookie works there until it expires); disabling the key ends it everywhere.
 */
export class RevokedSessions {
  private readonly until = new Map<string, number>();

  revoke(claims: SessionClaims): void {
    if (claims.sessionId) this.until.set(claims.sessionId, claims.expiresAt);
  }

  has(claims: SessionClaims, now: number): boolean {
    for (const [id, expiresAt] of this.until) if (expiresAt <= now) this.until.delete(id);
    return claims.sessionId !== '' && this.until.has(claims.sessionId);
  }
}

export class SessionSigner {
  private readonly secrets: readonly Buffer[];

  /** `secrets`: the first signs, every one verifies; none: one random secret for this process. */
  constructor(secrets: readonly string[]) {
    this.secrets =
      secrets.length > 0 ? secrets.map((secret) => Buffer.from(secret, 'utf8')) : [randomBytes(32)];
  }

  /** The cookie value of a session of the key `keyId` whose stored hash is `keyHash`. */
  sign(claims: SessionClaims, keyHash: string): string {
    const body = Buffer.from(
      JSON.stringify({ k: claims.keyId, e: claims.expiresAt, s: claims.sessionId, i: claims.issuedAt }),
    ).toString('base64url');
    return `${VERSION}.${body}.${mac(this.secrets[0]!, body, keyHash).toString('base64url')}`;
  }

  /**
   * The claims of a cookie this service signed that has not expired at `now`, or undefined.
   * `hashOf` gives the stored hash of a key id (undefined: no such key).
   */
  verify(
    cookie: string | undefined,
    now: number,
    hashOf: (keyId: string) => string | undefined,
  ): SessionClaims | undefined {
    const [version, body, signature, ...rest] = (cookie ?? '').split('.');
    if (version !== VERSION || !body || !signature || rest.length > 0) return undefined;
    const claims = parseBody(body);
    if (!claims || claims.expiresAt <= now) return undefined;
    const keyHash = hashOf(claims.keyId);
    if (keyHash === undefined) return undefined;
    const given = Buffer.from(signature, 'base64url');
    const valid = this.secrets.some((secret) => {
      const expected = mac(secret, body, keyHash);
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
    return valid ? claims : undefined;
  }
}

function mac(secret: Buffer, body: string, keyHash: string): Buffer {
  return createHmac('sha256', secret).update(`${VERSION}.${body}.${keyHash}`).digest();
}

function parseBody(body: string): SessionClaims | undefined {
  try {
    const parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as {
      k?: unknown;
      e?: unknown;
      s?: unknown;
      i?: unknown;
    };
    if (typeof parsed.k !== 'string' || typeof parsed.e !== 'number') return undefined;
    return {
      keyId: parsed.k,
      expiresAt: parsed.e,
      sessionId: typeof parsed.s === 'string' ? parsed.s : '',
      issuedAt: typeof parsed.i === 'number' ? parsed.i : 0,
    };
  } catch {
    return undefined;
  }
}
