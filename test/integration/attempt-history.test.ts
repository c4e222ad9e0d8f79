/**
 * GET /api/v1/tasks/{id} carries the attempt history the workflow keeps: each attempt's times,
 * outcome, status code and error, as the receiver saw them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness } from '../helpers/harness.js';
import { uniqueId, waitForStatus } from '../helpers/tasks.js';

let h: Harness;
beforeAll(async () => {
  h = await Harness.start();
});
afterAll(async () => {
  await h?.stop();
});

describe('attempt history', () => {
  it('a new task has none yet; a failing-then-succeeding one lists each attempt', async () => {
    const taskId = uniqueId('history');
    h.receiver.script(taskId, [{ status: 503 }, { status: 200 }]);
    const created = await h.create({
      taskId,
      taskType: h.taskType('history'),
      payload: {},
      delaySeconds: 0,
      callbackUrl: h.receiver.url,
      maxRetries: 2,
    });
    expect(created.status).toBe(201);
    expect(created.task.attemptHistory).toEqual([]);

    const task = await waitForStatus(h, taskId, 'SUCCEEDED');
    expect(h.receiver.callsFor(taskId)).toHaveLength(2);
    const [first, second] = task.attemptHistory ?? [];
    expect(task.attemptHistory).toHaveLength(2);
    expect(first).toMatchObject({ attempt: 1, outcome: 'RETRYABLE_ERROR', statusCode: 503 });
    expect(first!.error).toContain('503');
    expect(second).toEqual({
      attempt: 2,
      startedAt: expect.any(String),
      finishedAt: expect.any(String),
      outcome: 'SUCCEEDED',
      statusCode: 200,
    });
    // In order, each attempt after the one before (the retry waited its backoff).
    const times = [first!.startedAt, first!.finishedAt, second!.startedAt, second!.finishedAt].map(
      Date.parse,
    );
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(times[2]! - times[1]!).toBeGreaterThanOrEqual(900);
    expect(Date.parse(task.completedAt!)).toBeGreaterThanOrEqual(times[3]!);
  });

  it('a permanent failure is recorded as one PERMANENT_ERROR attempt', async () => {
    const taskId = uniqueId('history');
    h.receiver.script(taskId, [{ status: 410 }]);
    await h.create({
      taskId,
      taskType: h.taskType('history'),
      payload: {},
      delaySeconds: 0,
      callbackUrl: h.receiver.url,
      maxRetries: 3,
    });
    const task = await waitForStatus(h, taskId, 'FAILED');
    expect(task.attemptHistory).toMatchObject([{ attempt: 1, outcome: 'PERMANENT_ERROR', statusCode: 410 }]);
  });
});
