/** Signed console sessions: accepted with the secret that signed them, refused otherwise. */
import { describe, expect, it } from 'vitest';
import { SessionSigner } from '../../../src/console/session.js';

const SECRET = 'a'.repeat(32);
const OTHER = 'b'.repeat(32);
const HASH = `sha256:${'1'.repeat(64)}`;
const NOW = Date.UTC(2026, 11, 3, 12);
const hashes = (keyId: string) => (keyId === 'key1' ? HASH : undefined);
const cookie = new SessionSigner([SECRET]).sign(
  { keyId: 'key1', expiresAt: NOW + 60_000, sessionId: 'test-session', issuedAt: NOW },
  HASH,
);

describe('console sessions', () => {
  it('accepts its own cookie until it expires, on any signer with the secret', () => {
    expect(new SessionSigner([SECRET]).verify(cookie, NOW, hashes)).toEqual({
      keyId: 'key1',
      expiresAt: NOW + 60_000,
      sessionId: 'test-session',
      issuedAt: NOW,
    });
    expect(new SessionSigner([SECRET]).verify(cookie, NOW + 60_000, hashes)).toBeUndefined();
  });

  it('keeps accepting a rotated-out secret listed after the new one, and signs with the first', () => {
    const rotated = new SessionSigner([OTHER, SECRET]);
    expect(rotated.verify(cookie, NOW, hashes)?.keyId).toBe('key1');
    const fresh = rotated.sign(
      { keyId: 'key1', expiresAt: NOW + 1, sessionId: 'test-session', issuedAt: NOW },
      HASH,
    );
    expect(new SessionSigner([OTHER]).verify(fresh, NOW, hashes)?.keyId).toBe('key1');
    expect(new SessionSigner([SECRET]).verify(fresh, NOW, hashes)).toBeUndefined();
  });

  const [version, body, signature] = cookie.split('.');
  const longer = Buffer.from(JSON.stringify({ k: 'key1', e: NOW + 3_600_000 })).toString('base64url');
  it.each([
    { name: 'another secret', signer: new SessionSigner([OTHER]), value: cookie, lookup: hashes },
    { name: 'a random per-process secret', signer: new SessionSigner([]), value: cookie, lookup: hashes },
    {
      name: 'a key re-minted under its id',
      signer: new SessionSigner([SECRET]),
      value: cookie,
      lookup: () => `sha256:${'2'.repeat(64)}`,
    },
    {
      name: 'a key no longer there',
      signer: new SessionSigner([SECRET]),
      value: cookie,
      lookup: () => undefined,
    },
    {
      name: 'an extended expiry',
      signer: new SessionSigner([SECRET]),
      value: `${version}.${longer}.${signature}`,
      lookup: hashes,
    },
    {
      name: 'another version',
      signer: new SessionSigner([SECRET]),
      value: `v0.${body}.${signature}`,
      lookup: hashes,
    },
    {
      name: 'no signature',
      signer: new SessionSigner([SECRET]),
      value: `${version}.${body}`,
      lookup: hashes,
    },
    { name: 'garbage', signer: new SessionSigner([SECRET]), value: 'made-up', lookup: hashes },
    { name: 'nothing', signer: new SessionSigner([SECRET]), value: undefined, lookup: hashes },
  ])('refuses a cookie with $name', ({ signer, value, lookup }) => {
    expect(signer.verify(value, NOW, lookup)).toBeUndefined();
  });
});
