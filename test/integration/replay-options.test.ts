/**
 * Replay of one dead letter with options: maxRetries gives the new run its own retries, delaySeconds
 * and executeAt its own time; a value over a cap is refused with 400 and nothing is replayed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Task } from '../../src/contract/tasks.js';
import { Harness } from '../helpers/harness.js';
import { deadLetter, waitForStatus } from '../helpers/tasks.js';
import { runsOf } from '../helpers/temporal-cli.js';

/** A declared type whose maxRetries cap is lower than the API's own (50). */
const CAPPED = `replay.capped.${Date.now().toString(36)}`;
const TYPE_MAX_RETRIES = 3;

let h: Harness;
beforeAll(async () => {
  h = await Harness.start({
    policies: { taskTypes: { [CAPPED]: { maxRetries: { default: 0, max: TYPE_MAX_RETRIES } } } },
  });
});
afterAll(async () => {
  await h?.stop();
});

const replay = (taskId: string, body?: unknown) =>
  h.post(`/api/v1/tasks/${encodeURIComponent(taskId)}/replay`, body);

/** How late a replayed callback may arrive after its time on 2 shared cores (less than the delays tested). */
const FIRE_LAG_TOLERANCE_MS = 1500;

describe('replay options', () => {
  it('maxRetries gives the new run that many retries, whatever the dead letter had', async () => {
    // One 500 for the dead letter's only attempt, then two more 500s: the replay succeeds on its
    // third attempt, which only 2 retries or more reach.
    const failed = await deadLetter(h, CAPPED, 'replay-retries', {}, [
      { status: 500 },
      { status: 500 },
      { status: 500 },
      { status: 200 },
    ]);
    expect(failed).toMatchObject({ maxRetries: 0, attempts: 1 });

    const replayed = await replay(failed.taskId, { maxRetries: 2 });
    expect(replayed.status).toBe(200);
    expect(replayed.body).toMatchObject({ status: 'SCHEDULED', maxRetries: 2, attempts: 0 });

    const done = await waitForStatus(h, failed.taskId, 'SUCCEEDED');
    expect(done).toMatchObject({ maxRetries: 2, attempts: 3 });
    expect(h.receiver.callsFor(failed.taskId).map((call) => call.headers['x-task-attempt'])).toEqual([
      '1',
      '1',
      '2',
      '3',
    ]);
  });

  const timed: Array<{ name: string; body: (now: number) => Record<string, unknown>; dueIn: number }> = [
    { name: 'delaySeconds', body: () => ({ delaySeconds: 3 }), dueIn: 3000 },
    {
      name: 'executeAt with an offset',
      // The same instant written in +08:00: the task reports it in UTC.
      body: (now) => ({
        executeAt: new Date(now + 3000 + 8 * 3600_000).toISOString().replace('Z', '+08:00'),
      }),
      dueIn: 3000,
    },
  ];

  it.each(timed)('$name: the new run waits until then, and calls back on time', async ({ body, dueIn }) => {
    const failed = await deadLetter(h, CAPPED, 'replay-later');
    const before = Date.now();
    const replayed = await replay(failed.taskId, body(before));
    const after = Date.now();
    expect(replayed.status).toBe(200);
    const executeAt = Date.parse((replayed.body as Task).executeAt);
    expect(replayed.body.executeAt).toMatch(/Z$/);
    expect(executeAt).toBeGreaterThanOrEqual(before + dueIn - 1);
    expect(executeAt).toBeLessThanOrEqual(after + dueIn);
    // Still waiting: a replay that ran now would be RUNNING or done by the time its time comes.
    expect((await h.get(failed.taskId)).body).toMatchObject({ status: 'SCHEDULED', attempts: 0 });

    const [, call] = await h.receiver.waitForCalls(failed.taskId, 2);
    const lagMs = call!.at - executeAt;
    expect(lagMs).toBeGreaterThanOrEqual(0);
    expect(lagMs).toBeLessThanOrEqual(FIRE_LAG_TOLERANCE_MS);
    expect(call!.body.executeAt).toBe(replayed.body.executeAt);
    await waitForStatus(h, failed.taskId, 'SUCCEEDED');
  });
});

describe('replay options over their caps', () => {
  const DAY = 86_400;
  const refused: Array<{
    name: string;
    body: (now: number) => Record<string, unknown>;
    fields: string[];
    reason: RegExp;
  }> = [
    {
      name: "maxRetries over the type's cap",
      body: () => ({ maxRetries: TYPE_MAX_RETRIES + 1 }),
      fields: ['maxRetries'],
      reason: new RegExp(`cap of ${TYPE_MAX_RETRIES}`),
    },
    { name: 'maxRetries over 50', body: () => ({ maxRetries: 51 }), fields: ['maxRetries'], reason: /50/ },
    { name: 'a negative maxRetries', body: () => ({ maxRetries: -1 }), fields: ['maxRetries'], reason: /0/ },
    {
      name: 'delaySeconds beyond 90 days',
      body: () => ({ delaySeconds: 90 * DAY + 1 }),
      fields: ['delaySeconds'],
      reason: /more than 7776000 s/,
    },
    {
      name: 'a negative delaySeconds',
      body: () => ({ delaySeconds: -1 }),
      fields: ['delaySeconds'],
      reason: /0/,
    },
    {
      name: 'executeAt beyond 90 days',
      body: (now) => ({ executeAt: new Date(now + (90 * DAY + 60) * 1000).toISOString() }),
      fields: ['executeAt'],
      reason: /more than 90 days ahead/,
    },
    {
      name: 'executeAt more than 5 minutes past',
      body: (now) => ({ executeAt: new Date(now - 6 * 60_000).toISOString() }),
      fields: ['executeAt'],
      reason: /in the past/,
    },
    {
      name: 'executeAt without an offset',
      body: (now) => ({ executeAt: new Date(now + 60_000).toISOString().replace('Z', '') }),
      fields: ['executeAt'],
      reason: /offset/,
    },
    {
      name: 'both delaySeconds and executeAt',
      body: (now) => ({ delaySeconds: 1, executeAt: new Date(now + 60_000).toISOString() }),
      fields: ['delaySeconds', 'executeAt'],
      reason: /cannot be combined/,
    },
  ];

  /** A dead letter of its own for each case, so that one case's outcome cannot change another's. */
  const letters = new Map<string, Task>();
  beforeAll(async () => {
    const made = await Promise.all(refused.map(() => deadLetter(h, CAPPED, 'replay-capped')));
    refused.forEach((c, i) => letters.set(c.name, made[i]!));
  });

  it.each(refused)('$name: 400 INVALID_ARGUMENT naming the field, nothing replayed', async (c) => {
    const failed = letters.get(c.name)!;
    const response = await replay(failed.taskId, c.body(Date.now()));
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('INVALID_ARGUMENT');
    expect(response.body.error.details.map((d: { field: string }) => d.field)).toEqual(c.fields);
    expect(response.body.error.details[0].reason).toMatch(c.reason);

    expect(await runsOf(failed.taskId)).toHaveLength(1);
    expect((await h.get(failed.taskId)).body).toMatchObject({ status: 'FAILED', attempts: 1, maxRetries: 0 });
    expect(h.receiver.callsFor(failed.taskId)).toHaveLength(1);
  });

  it('a dead letter refused above replays at the caps (the refusals were the values, not the task)', async () => {
    const failed = letters.get(refused[0]!.name)!;
    const replayed = await replay(failed.taskId, { maxRetries: TYPE_MAX_RETRIES, delaySeconds: 0 });
    expect(replayed.status).toBe(200);
    expect(replayed.body).toMatchObject({ maxRetries: TYPE_MAX_RETRIES });
    await h.receiver.waitForCalls(failed.taskId, 2);
    await waitForStatus(h, failed.taskId, 'SUCCEEDED');
    expect(await runsOf(failed.taskId)).toHaveLength(2);
  });
});
