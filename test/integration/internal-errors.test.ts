/**
 * An unexpected failure answers 500 INTERNAL with nothing of the server's insides in the body (no
 * stack, file path, Temporal or gRPC detail); the log has them. Provoked for real: the API runs
 * against a real dev server whose namespace it names does not exist, which Temporal answers with a
 * NOT_FOUND the API has no meaning for on these routes.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness } from '../helpers/harness.js';

const NAMESPACE = `missing-${randomUUID()}`;

let h: Harness;
beforeAll(async () => {
  // No workers: they refuse to start on a namespace that does not exist.
  h = await Harness.start({ env: { TEMPORAL_NAMESPACE: NAMESPACE }, workers: false, captureLogs: true });
});
afterAll(async () => {
  await h?.stop();
});

/** What a 500 body may say: the code and a fixed sentence. */
const INTERNAL_BODY = { error: { code: 'INTERNAL', message: 'internal error' } };
/** Things of the server's insides that must not reach a client. */
const INSIDES = [
  NAMESPACE,
  'namespace',
  'grpc',
  'NOT_FOUND',
  'Temporal',
  'ServiceError',
  'stack',
  ' at ',
  '.ts',
  '.js',
  'node_modules',
  '/work',
  'src/tasks',
  'src/temporal',
];

describe('INTERNAL without internals', () => {
  it.each([
    { route: 'list', method: 'GET' as const, url: '/api/v1/tasks?status=FAILED' },
    { route: 'bulk replay', method: 'POST' as const, url: '/api/v1/tasks/replay', payload: {} },
    { route: 'bulk cancel', method: 'POST' as const, url: '/api/v1/tasks/cancel', payload: {} },
  ])('$route: 500 with only the code and a fixed message; the log has the cause', async (request) => {
    const before = h.logLines.length;
    const response = await h.app.inject({
      method: request.method,
      url: request.url,
      ...(request.payload ? { payload: request.payload } : {}),
    });
    expect(response.statusCode).toBe(500);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.json()).toEqual(INTERNAL_BODY);
    // Nor in a header (the body, equal to the fixed answer above, cannot carry them).
    for (const inside of INSIDES) {
      expect(JSON.stringify(response.headers), `headers mention ${inside}`).not.toContain(inside);
    }

    // The operator's side: one error line for the request, with Temporal's own words and a stack.
    const errors = h.logLines.slice(before).filter((line) => line.level === 50);
    expect(errors).toHaveLength(1);
    const err = errors[0]!.err as { message: string; stack: string };
    expect(`${err.message}\n${err.stack}`).toContain(NAMESPACE);
    expect(err.stack).toMatch(/src\/tasks\/(visibility|bulk)\.ts/);
  });
});
