/**
 * Owner isolation, asked from a non-admin key's side on the in-process app with an unreachable
 * Temporal: naming another owner is refused before any Temporal call (a 503 would mean the guard
 * let it through), and the owner a lookup or list acts for is the key's own. Table-driven over the
 * two functions every task route goes through (`accessFor`, `listOwner`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessFor, listOwner } from '../../../src/auth/principal.js';
import { ApiError } from '../../../src/errors/catalog.js';
import type { Principal } from '../../../src/auth/principal.js';
import { offlineApp, type OfflineApp } from '../../helpers/offline-app.js';

const unlimited = {
  allowedTaskTypes: undefined,
  allowedCallbackHosts: undefined,
  requestsPerMinute: undefined,
};
const alice: Principal = {
  keyId: 'k-alice',
  owner: 'alice',
  scopes: ['tasks:read', 'tasks:write'],
  ...unlimited,
};
const admin: Principal = { keyId: 'k-admin', owner: 'ops', scopes: ['admin'], ...unlimited };

describe('the owner a request acts for', () => {
  it.each([
    { who: 'alice', principal: alice, named: undefined, expected: 'alice' },
    { who: 'alice', principal: alice, named: 'alice', expected: 'alice' },
    { who: 'alice', principal: alice, named: 'bob', expected: 'refused' },
    { who: 'admin', principal: admin, named: undefined, expected: 'ops' },
    { who: 'admin', principal: admin, named: 'bob', expected: 'bob' },
  ])('a lookup by $who naming $named: $expected', ({ principal, named, expected }) => {
    const run = () => accessFor(principal, named).owner;
    if (expected === 'refused') expect(run).toThrow(ApiError);
    else expect(run()).toBe(expected);
  });

  it.each([
    { who: 'alice', principal: alice, named: undefined, expected: 'alice' },
    { who: 'alice', principal: alice, named: 'bob', expected: 'refused' },
    { who: 'admin', principal: admin, named: undefined, expected: 'every owner' },
    { who: 'admin', principal: admin, named: 'bob', expected: 'bob' },
  ])('a list by $who naming $named: $expected', ({ principal, named, expected }) => {
    const run = () => listOwner(principal, named) ?? 'every owner';
    if (expected === 'refused') expect(run).toThrow(ApiError);
    else expect(run()).toBe(expected);
  });
});

describe('over HTTP', () => {
  let offline: OfflineApp;

  beforeAll(async () => {
    offline = await offlineApp({
      keys: { alice: { owner: 'alice', scopes: ['tasks:read', 'tasks:write'] } },
    });
  });
  afterAll(async () => {
    await offline?.close();
  });

  it.each([
    ['GET', '/api/v1/tasks?owner=bob'],
    ['GET', '/api/v1/tasks/t-1?owner=bob'],
    ['POST', '/api/v1/tasks/t-1/cancel?owner=bob'],
    ['POST', '/api/v1/tasks/t-1/replay?owner=bob'],
  ])('a non-admin key naming another owner: %s %s is 403 before Temporal is asked', async (method, url) => {
    const response = await offline.app.inject({
      method: method as 'GET' | 'POST',
      url,
      headers: {
        authorization: `Bearer ${offline.keys.alice!.key}`,
        ...(method === 'POST' && { 'content-type': 'application/json' }),
      },
      ...(method === 'POST' && { payload: '{}' }),
    });
    expect(response.statusCode).toBe(403);
    expect(response.json().error.code).toBe('PERMISSION_DENIED');
  });
});
