/**
 * List page tokens as the API gives them out: Temporal's visibility token, bound by a digest to the
 * query it pages through. A token that is cut, altered, made up or used with other filters is
 * refused with 400 before it reaches Temporal (which would answer a malformed token with an opaque
 * server error). The digest has no secret: it catches mistakes, not a determined forger, who could
 * only move within the same query (the owner filter is the API's, never the token's).
 */
import { createHash } from 'node:crypto';
import { invalidArgument } from '../errors/catalog.js';

const DIGEST_LENGTH = 22;

function digestOf(query: string, token: Uint8Array): string {
  return createHash('sha256')
    .update(query)
    .update('\u0000')
    .update(token)
    .digest('base64url')
    .slice(0, DIGEST_LENGTH);
}

/** The `nextPageToken` the API answers for Temporal's `token` of `query`. */
export function encodePageToken(query: string, token: Uint8Array): string {
  return `${Buffer.from(token).toString('base64url')}.${digestOf(query, token)}`;
}

/** Temporal's token inside `text`, if the API gave `text` out for `query`; INVALID_ARGUMENT otherwise. */
export function decodePageToken(query: string, text: string): Uint8Array {
  const refused = invalidArgument('pageToken', 'is not a token this API gave out for this query');
  const dot = text.indexOf('.');
  if (dot <= 0 || dot !== text.lastIndexOf('.')) throw refused;
  const body = text.slice(0, dot);
  if (!/^[A-Za-z0-9_-]+$/.test(body)) throw refused;
  const token = Buffer.from(body, 'base64url');
  if (token.length === 0 || token.toString('base64url') !== body) throw refused;
  if (text.slice(dot + 1) !== digestOf(query, token)) throw refused;
  return token;
}
