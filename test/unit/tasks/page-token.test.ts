/**
 * Page tokens: what the API gave out for a query comes back as Temporal's token; anything else is a
 * 400 naming pageToken.
 */
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/errors/catalog.js';
import { decodePageToken, encodePageToken } from '../../../src/tasks/page-token.js';

const QUERY = "WorkflowType = 'delayedTask' AND TaskType = 'order.close'";
const TEMPORAL = Buffer.from('{"StartTime":"2026-12-03T13:00:00Z","RunID":"0193"}');
const token = encodePageToken(QUERY, TEMPORAL);

describe('page tokens', () => {
  it('give back the Temporal token for the same query', () => {
    expect(Buffer.from(decodePageToken(QUERY, token))).toEqual(TEMPORAL);
  });

  it.each([
    { name: 'another query', query: `${QUERY} AND TaskStatus = 'FAILED'`, text: token },
    { name: 'no digest', query: QUERY, text: token.split('.')[0]! },
    { name: 'a digest only', query: QUERY, text: `.${token.split('.')[1]}` },
    { name: 'cut short', query: QUERY, text: token.slice(0, -1) },
    { name: 'a changed body', query: QUERY, text: `${token[0] === 'A' ? 'B' : 'A'}${token.slice(1)}` },
    { name: 'two dots', query: QUERY, text: `${token}.x` },
    { name: 'plain base64', query: QUERY, text: TEMPORAL.toString('base64') },
    { name: 'characters outside base64url', query: QUERY, text: `a+/=.${token.split('.')[1]}` },
    { name: 'a word', query: QUERY, text: 'next' },
  ])('refuse $name (400 naming pageToken)', ({ query, text }) => {
    const decode = () => decodePageToken(query, text);
    // invalidArgument: INVALID_ARGUMENT with a detail whose field starts the message.
    expect(decode).toThrow(ApiError);
    expect(decode).toThrow(/^pageToken is not a token this API gave out for this query$/);
  });
});
