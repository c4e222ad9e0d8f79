/**
 * `Authorization: Bearer <token>` for the tokens an operator configures (METRICS_TOKEN), checked
 * the same way by the API and the worker.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

/** The token of an `Authorization: Bearer <token>` header; '' for anything else. */
export function bearerToken(authorization: string | undefined): string {
  return /^Bearer +(\S+) *$/i.exec(authorization ?? '')?.[1] ?? '';
}

/** Constant-time check of a bearer token against the configured one. */
export function bearerMatches(authorization: string | undefined, token: string): boolean {
  const presented = bearerToken(authorization);
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(presented), digest(token));
}
