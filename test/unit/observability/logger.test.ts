/**
 * What the API logs of a request never carries a credential: a key sent in the query string
 * (`?api_key=dts_...`, which some clients do) is logged without the query string, as callback URLs are.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, redactUrl } from '../../../src/observability/logger.js';
import { offlineApp, type OfflineApp } from '../../helpers/offline-app.js';

const SECRET = 'dts_k1_c2VjcmV0LXRoYXQtbXVzdC1uZXZlci1iZS1sb2dnZWQ';
const lines: string[] = [];
let offline: OfflineApp;
let app: FastifyInstance;

beforeAll(async () => {
  // The API's own logger (src/observability/logger.ts), writing into `lines`.
  offline = await offlineApp({
    logger: createLogger('info', 'api', { write: (line: string) => lines.push(line) }),
  });
  app = offline.app;
});
afterAll(async () => {
  await offline?.close();
});

it.each(['/healthz', '/api/v1/tasks/t-1', '/no-such-route'])(
  'logs %s?api_key=... without the key',
  async (path) => {
    lines.length = 0;
    await app.inject({ method: 'GET', url: `${path}?api_key=${SECRET}&x=1` });
    const text = lines.join('');
    expect(text).toContain(path);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain('c2VjcmV0');
  },
);

describe('redactUrl', () => {
  it.each([
    ['http://x.test/a?token=s', 'http://x.test/a?[redacted]'],
    ['https://u:p@x.test/a', 'https://[redacted]@x.test/a'],
    ['http://x.test/a', 'http://x.test/a'],
    ['/path?q=1', '/path?[redacted]'],
  ])('%s → %s', (input, expected) => expect(redactUrl(input)).toBe(expected));
});
