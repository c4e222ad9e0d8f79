/**
 * The list's server-side filters: task id prefix and due-time range, each answered by Temporal
 * visibility (the page holds only matching tasks), and bad values refused with INVALID_ARGUMENT.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness } from '../helpers/harness.js';
import { listTasks, waitForList } from '../helpers/tasks.js';

let h: Harness;
beforeAll(async () => {
  h = await Harness.start();
});
afterAll(async () => {
  await h?.stop();
});

const HOUR = 3600_000;
/** A whole hour some weeks ahead (the API refuses more than 90 days): no task is due in this test. */
const base = Math.ceil((Date.now() + 30 * 24 * HOUR) / HOUR) * HOUR;

async function create(taskId: string, taskType: string, dueAt: number): Promise<void> {
  const created = await h.create({
    taskId,
    taskType,
    payload: {},
    executeAt: new Date(dueAt).toISOString(),
    callbackUrl: h.receiver.url,
  });
  expect(created.status, JSON.stringify(created.raw)).toBe(201);
}

const ids = (tasks: { taskId: string }[]) => tasks.map((t) => t.taskId).sort();

describe('list filters', () => {
  it('idPrefix lists exactly the tasks whose id starts with it, within the owner', async () => {
    const taskType = h.taskType('prefix');
    const run = randomUUID().slice(0, 8);
    const wanted = [`inv-${run}-1`, `inv-${run}-2`];
    const others = [`inx-${run}-1`, `ord-${run}-inv-${run}`];
    for (const taskId of [...wanted, ...others]) await create(taskId, taskType, base);
    await waitForList(h, { taskType }, (tasks) => tasks.length === 4, 'all four tasks listed');

    const listed = await listTasks(h, { idPrefix: `inv-${run}`, owner: 'default' });
    expect(ids(listed)).toEqual(wanted);
    // Case-sensitive, and a prefix of nothing lists nothing.
    expect(await listTasks(h, { idPrefix: `INV-${run}`, owner: 'default' })).toEqual([]);
    expect(ids(await listTasks(h, { idPrefix: `inv-${run}-2`, owner: 'default' }))).toEqual([wanted[1]]);
  });

  it('dueAfter (inclusive) and dueBefore (exclusive) list exactly the tasks due in the range', async () => {
    const taskType = h.taskType('due');
    const run = randomUUID().slice(0, 8);
    const at = (hours: number) => base + hours * HOUR;
    await create(`early-${run}`, taskType, at(1));
    await create(`edge-${run}`, taskType, at(2));
    await create(`middle-${run}`, taskType, at(3));
    await create(`late-${run}`, taskType, at(4));
    await waitForList(h, { taskType }, (tasks) => tasks.length === 4, 'all four tasks listed');

    // Offsets other than Z are read as the instants they name.
    const twoHoursIn = new Date(at(2) + 8 * HOUR).toISOString().replace('Z', '+08:00');
    const listed = await listTasks(h, {
      taskType,
      dueAfter: twoHoursIn,
      dueBefore: new Date(at(4)).toISOString(),
    });
    expect(ids(listed)).toEqual([`edge-${run}`, `middle-${run}`]);
    expect(ids(await listTasks(h, { taskType, dueAfter: new Date(at(3) + 1).toISOString() }))).toEqual([
      `late-${run}`,
    ]);
    expect(ids(await listTasks(h, { taskType, dueBefore: new Date(at(2)).toISOString() }))).toEqual([
      `early-${run}`,
    ]);
  });

  it.each([
    { query: `idPrefix=${encodeURIComponent("a' OR 1=1")}&owner=default`, field: 'idPrefix' },
    { query: 'idPrefix=-leading-dash&owner=default', field: 'idPrefix' },
    { query: 'idPrefix=inv', field: 'idPrefix' },
    { query: 'dueAfter=2031-01-01T10:00:00', field: 'dueAfter' },
    { query: 'dueBefore=tomorrow', field: 'dueBefore' },
    { query: 'dueAfter=2031-01-02T00:00:00Z&dueBefore=2031-01-01T00:00:00Z', field: 'dueBefore' },
    { query: 'dueAfter=2031-01-01T00:00:00Z&dueBefore=2031-01-01T00:00:00Z', field: 'dueBefore' },
  ])('GET /api/v1/tasks?$query is 400 INVALID_ARGUMENT on $field', async ({ query, field }) => {
    const response = await h.call('GET', `/api/v1/tasks?${query}`);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('INVALID_ARGUMENT');
    expect(response.body.error.details?.map((d: { field: string }) => d.field)).toContain(field);
  });
});
