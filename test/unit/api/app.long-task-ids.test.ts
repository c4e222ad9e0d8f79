/**
 * Long task ids in the path. An id may be 128 characters long: every task route reaches its handler
 * with one (against an unreachable Temporal that is 503 UNAVAILABLE; before, the router answered
 * Fastify's own 414 body past 100 characters, so a task created with a 120-character id could not
 * be read). A longer id is 400 INVALID_ARGUMENT naming taskId, and a path segment past what the
 * router matches, or a bad percent-encoding, gets the API's error envelope too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { offlineApp, type OfflineApp } from '../../helpers/offline-app.js';

let api: OfflineApp;

beforeAll(async () => {
  api = await offlineApp({ keys: { writer: { owner: 'orders', scopes: ['tasks:read', 'tasks:write'] } } });
});
afterAll(async () => {
  await api?.close();
});

const ROUTES = [
  { name: 'GET /api/v1/tasks/{id}', method: 'GET', path: (id: string) => `/api/v1/tasks/${id}` },
  { name: 'cancel', method: 'POST', path: (id: string) => `/api/v1/tasks/${id}/cancel` },
  {
    name: 'reschedule',
    method: 'POST',
    path: (id: string) => `/api/v1/tasks/${id}/reschedule`,
    payload: { delaySeconds: 60 },
  },
  { name: 'replay', method: 'POST', path: (id: string) => `/api/v1/tasks/${id}/replay`, payload: {} },
] as const;

async function call(route: (typeof ROUTES)[number], id: string) {
  const response = await api.app.inject({
    method: route.method,
    url: route.path(id),
    headers: { authorization: `Bearer ${api.keys.writer!.key}` },
    ...('payload' in route ? { payload: route.payload } : {}),
  });
  return { status: response.statusCode, body: response.json() as Record<string, unknown> };
}

describe.each(ROUTES)('$name', (route) => {
  it.each([101, 120, 128])('reaches the task with a %i-character id', async (length) => {
    const { status, body } = await call(route, `t${'x'.repeat(length - 1)}`);
    expect({ status, body }).toMatchObject({ status: 503, body: { error: { code: 'UNAVAILABLE' } } });
  });

  it('answers a 129-character id 400 INVALID_ARGUMENT naming params.taskId', async () => {
    const { status, body } = await call(route, `t${'x'.repeat(128)}`);
    expect(status).toBe(400);
    expect(body).toMatchObject({
      error: { code: 'INVALID_ARGUMENT', details: [{ field: 'params.taskId' }] },
    });
  });

  it.each([600, 5_000])(
    'answers a %i-character path segment in the API envelope, not 414',
    async (length) => {
      const { status, body } = await call(route, 'x'.repeat(length));
      expect(status).toBe(400);
      expect(body).toEqual({
        error: {
          code: 'INVALID_ARGUMENT',
          message: expect.stringMatching(/^path has a segment over \d+ characters$/),
          details: [{ field: 'path', reason: expect.any(String) }],
        },
      });
    },
  );

  it('answers a bad percent-encoding in the API envelope', async () => {
    const { status, body } = await call(route, 'abc%E0%A4%A');
    expect(status).toBe(400);
    expect(body).toMatchObject({ error: { code: 'INVALID_ARGUMENT', details: [{ field: 'path' }] } });
    expect(Object.keys(body)).toEqual(['error']);
  });
});
