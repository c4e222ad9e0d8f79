/**
 * A payload nested thousands of levels deep (well under the size limit) is refused with a 400 before
 * anything recurses over it: single create, each batch item, and a replay's new payload. Before, the
 * checks recursed and overflowed the stack: 500, or a 500 inside a batch's 200.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { offlineApp, type OfflineApp } from '../../helpers/offline-app.js';

let offline: OfflineApp;
let app: FastifyInstance;

beforeAll(async () => {
  offline = await offlineApp();
  app = offline.app;
});
afterAll(async () => {
  await offline?.close();
});

/** `{"v": [[[...1...]]]}` with `depth` arrays, as raw JSON text (never built as an object here). */
function deepPayload(depth: number): string {
  return `{"v":${'['.repeat(depth)}1${']'.repeat(depth)}}`;
}

const task = (payload: string) =>
  `{"taskType":"deep.test","delaySeconds":60,"callbackUrl":"https://receiver.example/cb","payload":${payload}}`;

it.each([5_000, 100_000])('refuses a payload nested %i deep on create with 400, not 500', async (depth) => {
  const response = await app.inject({
    method: 'POST',
    url: '/api/v1/tasks',
    headers: { 'content-type': 'application/json' },
    payload: task(deepPayload(depth)),
  });
  expect(response.statusCode).toBe(400);
  expect(response.json().error.code).toBe('INVALID_ARGUMENT');
});

it('refuses it inside a batch item with the item 400, not a 500 item', async () => {
  const response = await app.inject({
    method: 'POST',
    url: '/api/v1/tasks/batch',
    headers: { 'content-type': 'application/json' },
    payload: `{"tasks":[${task(deepPayload(5_000))}]}`,
  });
  expect([200, 400]).toContain(response.statusCode);
  const body = response.json();
  const status = response.statusCode === 200 ? body.results[0].status : response.statusCode;
  expect(status).toBe(400);
});

it('refuses it as a replay payload with 400', async () => {
  const response = await app.inject({
    method: 'POST',
    url: '/api/v1/tasks/t-1/replay',
    headers: { 'content-type': 'application/json' },
    payload: `{"payload":${deepPayload(5_000)}}`,
  });
  expect(response.statusCode).toBe(400);
});
