/**
 * Paging through GET /api/v1/tasks: small pages cover the list exactly once, in order, the last page
 * says there is no next one, and a page token the API did not give out is a 400, never a 500.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TaskList } from '../../src/contract/tasks.js';
import { Harness } from '../helpers/harness.js';
import { waitForList } from '../helpers/tasks.js';

let h: Harness;
let taskType: string;
/** Ids of the tasks created for this file, oldest first. */
const created: string[] = [];
const TASKS = 7;

beforeAll(async () => {
  h = await Harness.start();
  taskType = h.taskType('paging');
  // One after the other: each starts later than the one before, so newest-first is one order.
  for (let i = 0; i < TASKS; i++) {
    const { status, task } = await h.create({
      taskType,
      payload: { i },
      delaySeconds: 3600,
      callbackUrl: h.receiver.url,
    });
    expect(status).toBe(201);
    created.push(task.taskId);
  }
  await waitForList(h, { taskType, pageSize: 100 }, (list) => list.length === TASKS, `${TASKS} tasks listed`);
});
afterAll(async () => {
  await h?.stop();
});

async function page(query: Record<string, string | number>): Promise<{ status: number; body: any }> {
  const search = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]));
  return h.call('GET', `/api/v1/tasks?${search.toString()}`);
}

/** Follows nextPageToken from the first page to the one without; fails after `max` pages. */
async function allPages(pageSize: number, max = 20): Promise<TaskList[]> {
  const pages: TaskList[] = [];
  let pageToken: string | null = null;
  do {
    const response = await page({ taskType, pageSize, ...(pageToken ? { pageToken } : {}) });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    pages.push(response.body as TaskList);
    pageToken = (response.body as TaskList).nextPageToken;
    expect(pages.length, 'pages followed').toBeLessThanOrEqual(max);
  } while (pageToken !== null);
  return pages;
}

describe('paging', () => {
  it.each([1, 2, 3, 6])(
    'pages of %i cover every task once, newest first, and only the last page has no token',
    async (pageSize) => {
      const pages = await allPages(pageSize);
      const ids = pages.flatMap((p) => p.tasks.map((t) => t.taskId));
      expect(ids).toEqual([...created].reverse());
      expect(pages.map((p) => p.tasks.length)).toEqual(
        Array.from({ length: Math.ceil(TASKS / pageSize) }, (_, i) =>
          Math.min(pageSize, TASKS - i * pageSize),
        ),
      );
      for (const p of pages.slice(0, -1)) expect(p.nextPageToken).toEqual(expect.any(String));
      expect(pages.at(-1)!.nextPageToken).toBeNull();
    },
  );

  it('a page that holds the rest exactly is the last one: no token to an empty page', async () => {
    const pages = await allPages(TASKS);
    expect(pages).toHaveLength(1);
    expect(pages[0]!.tasks).toHaveLength(TASKS);
    expect(pages[0]!.nextPageToken).toBeNull();
  });

  it('a page size larger than the list gives one page without a token', async () => {
    const response = await page({ taskType, pageSize: 1000 });
    expect(response.status).toBe(200);
    expect(response.body.tasks).toHaveLength(TASKS);
    expect(response.body.nextPageToken).toBeNull();
  });
});

describe('page tokens the API did not give out', () => {
  let real: string;
  beforeAll(async () => {
    const first = await page({ taskType, pageSize: 2 });
    real = first.body.nextPageToken as string;
    expect(real).toEqual(expect.any(String));
  });

  const forged: Array<{ name: string; token: () => string }> = [
    { name: 'a word', token: () => 'not-a-token' },
    { name: 'characters outside base64url', token: () => '!!!***' },
    { name: 'a real token cut short', token: () => real.slice(0, Math.floor(real.length / 2)) },
    { name: 'a real token with a character changed', token: () => flipFirst(real) },
    { name: 'JSON of another shape', token: () => Buffer.from('{"page":2}').toString('base64url') },
    {
      name: 'plain base64 of random bytes',
      token: () => Buffer.from('\u0000\u00ff\u0010garbage').toString('base64'),
    },
  ];

  it.each(forged)('$name: 400 INVALID_ARGUMENT naming pageToken', async ({ token }) => {
    const response = await page({ taskType, pageSize: 2, pageToken: token() });
    expect(response.status, JSON.stringify(response.body)).toBe(400);
    expect(response.body.error).toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: [{ field: 'pageToken', reason: expect.any(String) }],
    });
  });

  it('a real token with other filters: 400, not a page of another list', async () => {
    const response = await page({ taskType, status: 'SCHEDULED', pageSize: 2, pageToken: real });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: [{ field: 'pageToken' }],
    });
  });

  it('the real token still works after all of them', async () => {
    const response = await page({ taskType, pageSize: 2, pageToken: real });
    expect(response.status).toBe(200);
    expect(response.body.tasks.map((t: { taskId: string }) => t.taskId)).toEqual(
      [...created].reverse().slice(2, 4),
    );
  });
});

/** The token with its first character replaced by another base64url character. */
function flipFirst(token: string): string {
  const replacement = token[0] === 'A' ? 'B' : 'A';
  return `${replacement}${token.slice(1)}`;
}
