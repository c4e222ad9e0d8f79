/**
 * The scheduling logic of a batch create with a fake service (pure logic; the integration test
 * drives the real one): the concurrency bound, same-id items in request order, and when an
 * unreachable Temporal fails the items that have not tried yet.
 */
import { describe, expect, it } from 'vitest';
import { ANONYMOUS } from '../../../src/auth/principal.js';
import { createBatch } from '../../../src/api/batch-create.js';
import { ApiError, ErrorCode } from '../../../src/errors/catalog.js';
import type { CreateTaskBody, Task } from '../../../src/contract/tasks.js';
import type { CreateResult, PreparedCreate } from '../../../src/tasks/commands.js';
import type { TaskSpec } from '../../../src/shared/task.js';

const body = (taskId: string): CreateTaskBody => ({
  taskId,
  taskType: 'unit.batch',
  payload: {},
  delaySeconds: 60,
  callbackUrl: 'https://example.com/cb',
});

/** A service whose commit answers as `answer` says, after a turn of the event loop. */
function fakeService(answer: (taskId: string, call: number) => CreateResult | ApiError) {
  const committed: string[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  return {
    committed,
    maxInFlight: () => maxInFlight,
    service: {
      prepare: async (_access: unknown, item: CreateTaskBody): Promise<PreparedCreate> => ({
        spec: { taskId: item.taskId } as TaskSpec,
        fingerprint: '',
        workflowTaskQueue: 'q.callbacks._default',
      }),
      commit: async ({ spec }: PreparedCreate): Promise<CreateResult> => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        committed.push(spec.taskId);
        await new Promise((resolve) => setTimeout(resolve, 1));
        inFlight--;
        const outcome = answer(spec.taskId, committed.length);
        if (outcome instanceof ApiError) throw outcome;
        return outcome;
      },
    },
  };
}

const created = (taskId: string): CreateResult => ({ task: { taskId } as Task, created: true });
const down = () => new ApiError(ErrorCode.Unavailable, 'Temporal is unreachable; retry later');
const statuses = (outcomes: Awaited<ReturnType<typeof createBatch>>) =>
  outcomes.map((o) => ('error' in o ? o.error.status : o.result.created ? 201 : 200));

describe('createBatch', () => {
  it('starts at most `concurrency` items at once and answers in request order', async () => {
    const fake = fakeService((taskId) => created(taskId));
    const ids = Array.from({ length: 20 }, (_, i) => `t${i}`);
    const outcomes = await createBatch(fake.service, ANONYMOUS, ids.map(body), 4);
    expect(fake.maxInFlight()).toBe(4);
    expect(outcomes.map((o) => o.index)).toEqual(ids.map((_, i) => i));
    expect(statuses(outcomes)).toEqual(ids.map(() => 201));
  });

  it('commits items with the same taskId one after the other, in request order', async () => {
    const seen = new Set<string>();
    const fake = fakeService((taskId) => {
      const repeat = seen.has(taskId);
      seen.add(taskId);
      return { task: { taskId } as Task, created: !repeat };
    });
    const outcomes = await createBatch(fake.service, ANONYMOUS, ['a', 'b', 'a', 'a', 'c'].map(body), 8);
    expect(statuses(outcomes)).toEqual([201, 201, 200, 200, 201]);
    expect(fake.committed.filter((id) => id === 'a')).toHaveLength(3);
  });

  it('answers 503 at once for items not yet tried when Temporal is unreachable from the start', async () => {
    const fake = fakeService(() => down());
    const outcomes = await createBatch(
      fake.service,
      ANONYMOUS,
      Array.from({ length: 30 }, (_, i) => body(`d${i}`)),
      5,
    );
    expect(statuses(outcomes)).toEqual(Array.from({ length: 30 }, () => 503));
    // Only the first wave reached the (fake) server.
    expect(fake.committed.length).toBeLessThanOrEqual(5);
  });

  it('keeps trying every item once Temporal has answered one (an overloaded server, not a dead one)', async () => {
    const fake = fakeService((taskId, call) =>
      call === 1 ? created(taskId) : call % 2 === 0 ? down() : created(taskId),
    );
    const outcomes = await createBatch(
      fake.service,
      ANONYMOUS,
      Array.from({ length: 12 }, (_, i) => body(`o${i}`)),
      1,
    );
    expect(fake.committed).toHaveLength(12);
    expect(statuses(outcomes)).toEqual([201, 503, 201, 503, 201, 503, 201, 503, 201, 503, 201, 503]);
  });

  it('refuses an item that breaks the create schema with the single create’s details, without preparing it', async () => {
    const fake = fakeService((taskId) => created(taskId));
    const outcomes = await createBatch(fake.service, ANONYMOUS, [{ ...body('x'), colour: 'red' }, body('y')]);
    expect(statuses(outcomes)).toEqual([400, 201]);
    const [first] = outcomes;
    expect('error' in first! && first.error.toBody()).toEqual({
      error: {
        code: 'INVALID_ARGUMENT',
        message: 'colour is not a known field',
        details: [{ field: 'colour', reason: 'is not a known field' }],
      },
    });
    expect(fake.committed).toEqual(['y']);
  });
});
