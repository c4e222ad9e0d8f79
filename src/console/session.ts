/**
 * Console sessions as signed, expiring cookies, so that any API process holding the same secret
 * accepts a session another one made (several processes behind one load balancer). The cookie
 * names the API key (its id, never its secret) and the expiry; its HMAC-SHA256 also covers the
 * key's stored hash, so a key re-minted under its id ends the sessions of the old one. Nothing is
 * kept on the server: logging out clears the browser's cookie, and a copy of it stays valid until
 * it expires (keep CONSOLE_SESSION_TTL_SECONDS short; disabling the key ends it at once).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const VERSION = 'v1';

export interface SessionClaims {
  keyId: string;
  /** Epoch milliseconds; a session is refused from then on. */
  expiresAt: number;
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
    const body = Buffer.from(JSON.stringify({ k: claims.keyId, e: claims.expiresAt })).toString('base64url');
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
    };
    if (typeof parsed.k !== 'string' || typeof parsed.e !== 'number') return undefined;
    return { keyId: parsed.k, expiresAt: parsed.e };
  } catch {
    return undefined;
  }
}
