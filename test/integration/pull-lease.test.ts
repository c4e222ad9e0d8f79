/**
 * Pull delivery on the real dev server: a pull task waits on its owner's pull queue until a consumer
 * leases it through the API; ack, nack, extend and release settle the lease, and an expired lease is
 * a failed attempt retried with the task's backoff (docs/workers.md).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness } from '../helpers/harness.js';
import { lease, leaseOne, pullTask, settle } from '../helpers/pull.js';
import { uniqueId, waitForStatus, waitUntilRetrying } from '../helpers/tasks.js';
import { waitFor } from '../helpers/wait.js';

let h: Harness;
beforeAll(async () => {
  // Encrypted at rest: the lease route decodes the attempt's input through the codec.
  h = await Harness.start({
    env: {
      PAYLOAD_ENCRYPTION_KEYS: `k1:${Buffer.alloc(32, 7).toString('base64')}`,
      PAYLOAD_ENCRYPTION_CURRENT_KEY_ID: 'k1',
      LEASE_MIN_SECONDS: '2',
    },
  });
});
afterAll(async () => {
  await h?.stop();
});

describe('a pull task', () => {
  it('is leased when due with its payload, key and attempt, and SUCCEEDS on ack', async () => {
    const taskType = h.taskType('pull.ack');
    const created = await h.create(
      pullTask(taskType, { taskId: uniqueId('ack'), payload: { orderId: '7' } }),
    );
    expect(created.status).toBe(201);
    expect(created.task.delivery).toEqual({ mode: 'pull', queue: taskType, leaseSeconds: 60 });
    expect(created.task.callbackUrl).toBeUndefined();

    const leasedAt = Date.now();
    const leased = await leaseOne(h, { queues: [taskType], workerIdentity: 'worker-a' });
    // The lease says its length, so a shell can plan extensions; it ends that long after the answer.
    expect(leased.leaseSeconds).toBe(60);
    expect(Date.parse(leased.leaseExpiresAt)).toBeGreaterThanOrEqual(leasedAt + 60_000);
    expect(Date.parse(leased.leaseExpiresAt)).toBeLessThanOrEqual(Date.now() + 60_000);
    expect(leased.task).toMatchObject({
      taskId: created.task.taskId,
      taskType,
      queue: taskType,
      payload: { orderId: '7' },
      attempt: 1,
      idempotencyKey: created.task.taskId,
    });
    const running = (await h.get(created.task.taskId)).body;
    expect(running.status).toBe('RUNNING');
    expect(running.lease?.workerIdentity).toBe('worker-a');
    expect(Date.parse(running.lease!.expiresAt)).toBeGreaterThan(Date.now() + 50_000);

    const acked = await settle(h, 'ack', { leaseToken: leased.leaseToken });
    expect(acked).toEqual({ status: 200, body: { taskId: created.task.taskId, status: 'SUCCEEDED' } });
    const done = await waitForStatus(h, created.task.taskId, 'SUCCEEDED');
    expect(done.attempts).toBe(1);
    expect(done.lease).toBeUndefined();
    // Settled: the same token again is no lease.
    expect((await settle(h, 'ack', { leaseToken: leased.leaseToken })).body.error.code).toBe(
      'LEASE_NOT_FOUND',
    );
  });

  it('is retried with backoff and the same key after a nack, dead-lettered, replayed, and leased again', async () => {
    const taskType = h.taskType('pull.nack');
    const { task } = await h.create(pullTask(taskType, { taskId: uniqueId('nack'), maxRetries: 1 }));
    const first = await leaseOne(h, { queues: [taskType] });
    const nacked = await settle(h, 'nack', { leaseToken: first.leaseToken, reason: 'db down' });
    expect(nacked).toEqual({ status: 200, body: { taskId: task.taskId, status: 'RUNNING' } });
    const retrying = await waitUntilRetrying(h, task.taskId);
    expect(retrying.lastError?.message).toBe('db down');

    const second = await leaseOne(h, { queues: [taskType] });
    expect(second.task.attempt).toBe(2);
    expect(second.task.idempotencyKey).toBe(first.task.idempotencyKey);
    // The backoff (1 s for the first retry) lies between the two attempts.
    const history = (await h.get(task.taskId)).body.attemptHistory!;
    expect(Date.parse(new Date().toISOString()) - Date.parse(history[0]!.finishedAt)).toBeGreaterThanOrEqual(
      900,
    );

    await settle(h, 'nack', { leaseToken: second.leaseToken, reason: 'still down' });
    const failed = await waitForStatus(h, task.taskId, 'FAILED');
    expect(failed.attempts).toBe(2);
    expect(failed.lastError?.message).toBe('still down');
    expect(failed.attemptHistory?.map((a) => a.outcome)).toEqual(['RETRYABLE_ERROR', 'RETRYABLE_ERROR']);

    const replayed = await h.post(`/api/v1/tasks/${task.taskId}/replay`, { payload: { n: 2 } });
    expect(replayed.status).toBe(200);
    const third = await leaseOne(h, { queues: [taskType] });
    expect(third.task).toMatchObject({ taskId: task.taskId, attempt: 1, payload: { n: 2 } });
    expect(third.task.idempotencyKey).toBe(first.task.idempotencyKey);
    await settle(h, 'ack', { leaseToken: third.leaseToken });
    await waitForStatus(h, task.taskId, 'SUCCEEDED');
  });

  it('is dead-lettered at once by a permanent nack, with the reason as lastError', async () => {
    const taskType = h.taskType('pull.permanent');
    const { task } = await h.create(pullTask(taskType, { taskId: uniqueId('perm'), maxRetries: 5 }));
    const leased = await leaseOne(h, { queues: [taskType] });
    const nacked = await settle(h, 'nack', {
      leaseToken: leased.leaseToken,
      retryable: false,
      reason: 'bad order',
    });
    expect(nacked.body.status).toBe('FAILED');
    const failed = await waitForStatus(h, task.taskId, 'FAILED');
    expect(failed).toMatchObject({ attempts: 1, lastError: { message: 'bad order' } });
  });

  it('goes to a second worker as attempt 2 when its lease expires; the late ack is refused and the task acked once', async () => {
    const taskType = h.taskType('pull.expiry');
    const { task } = await h.create(
      pullTask(taskType, { taskId: uniqueId('expiry'), delivery: { mode: 'pull', leaseSeconds: 2 } }),
    );
    const first = await leaseOne(h, { queues: [taskType], workerIdentity: 'slow' });
    expect(first.leaseSeconds).toBe(2);
    // Worker "slow" neither acks nor extends: the lease runs out and the task is retried (1 s backoff).
    const second = await leaseOne(h, { queues: [taskType], workerIdentity: 'fast' });
    expect(second.task.attempt).toBe(2);
    const late = await settle(h, 'ack', { leaseToken: first.leaseToken });
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe('LEASE_EXPIRED');
    expect((await settle(h, 'ack', { leaseToken: second.leaseToken })).status).toBe(200);
    const done = await waitForStatus(h, task.taskId, 'SUCCEEDED');
    expect(done.attempts).toBe(2);
    expect(done.attemptHistory?.map((a) => a.outcome)).toEqual(['RETRYABLE_ERROR', 'SUCCEEDED']);
    expect(done.attemptHistory?.[0]?.error).toMatch(/lease expired/);
  });

  it('keeps its lease while extended past leaseSeconds', async () => {
    const taskType = h.taskType('pull.extend');
    const { task } = await h.create(
      pullTask(taskType, { taskId: uniqueId('extend'), delivery: { mode: 'pull', leaseSeconds: 2 } }),
    );
    const leased = await leaseOne(h, { queues: [taskType] });
    const started = Date.now();
    while (Date.now() - started < 4_000) {
      const extended = await settle(h, 'extend', { leaseToken: leased.leaseToken });
      expect(extended.status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 700));
    }
    expect((await settle(h, 'ack', { leaseToken: leased.leaseToken })).status).toBe(200);
    expect((await waitForStatus(h, task.taskId, 'SUCCEEDED')).attempts).toBe(1);
  });

  it('is handed back by release without spending an attempt, and leased again at once', async () => {
    const taskType = h.taskType('pull.release');
    const { task } = await h.create(pullTask(taskType, { taskId: uniqueId('release') }));
    const first = await leaseOne(h, { queues: [taskType] });
    const released = await settle(h, 'release', { leaseToken: first.leaseToken });
    expect(released.body).toEqual({ taskId: task.taskId, status: 'RUNNING' });
    const again = await leaseOne(h, { queues: [taskType] });
    expect(again.task.attempt).toBe(1);
    await settle(h, 'ack', { leaseToken: again.leaseToken });
    const done = await waitForStatus(h, task.taskId, 'SUCCEEDED');
    expect(done.attempts).toBe(1);
    expect(done.attemptHistory).toHaveLength(1);
  });

  it('is offered again at once after 3 releases of an attempt, then after 1 s and 2 s: a release loop slows down, no attempt spent', async () => {
    const taskType = h.taskType('pull.release-loop');
    const { task } = await h.create(pullTask(taskType, { taskId: uniqueId('release-loop') }));
    const gaps: number[] = [];
    let leased = await leaseOne(h, { queues: [taskType] });
    for (let release = 1; release <= 5; release++) {
      const releasedAt = Date.now();
      expect((await settle(h, 'release', { leaseToken: leased.leaseToken })).status).toBe(200);
      if (release > 3) {
        // Waiting, and saying until when: the task's view shows the next offer.
        const waiting = await waitUntilRetrying(h, task.taskId);
        expect(Date.parse(waiting.nextAttemptAt!)).toBeGreaterThan(releasedAt);
      }
      leased = await leaseOne(h, { queues: [taskType] });
      gaps.push(Date.now() - releasedAt);
      expect(leased.task.attempt).toBe(1);
    }
    console.log(`release -> leased again, releases 1-5 of one attempt: ${gaps.join(', ')} ms`);
    expect(gaps[3]).toBeGreaterThanOrEqual(900);
    expect(gaps[4]).toBeGreaterThanOrEqual(1_900);
    await settle(h, 'ack', { leaseToken: leased.leaseToken });
    const done = await waitForStatus(h, task.taskId, 'SUCCEEDED');
    expect(done.attempts).toBe(1);
    expect(done.attemptHistory).toHaveLength(1);
  });

  it('stays CANCELLED when cancelled while leased: ack and extend answer TASK_CANCELLED', async () => {
    const taskType = h.taskType('pull.cancel');
    const { task } = await h.create(pullTask(taskType, { taskId: uniqueId('cancel') }));
    const leased = await leaseOne(h, { queues: [taskType] });
    expect((await h.post(`/api/v1/tasks/${task.taskId}/cancel`)).body.status).toBe('CANCELLED');
    const extend = await settle(h, 'extend', { leaseToken: leased.leaseToken });
    expect(extend.body.error.code).toBe('TASK_CANCELLED');
    const ack = await settle(h, 'ack', { leaseToken: leased.leaseToken });
    expect(ack.status).toBe(409);
    expect(ack.body.error.code).toBe('TASK_CANCELLED');
    expect((await h.get(task.taskId)).body.status).toBe('CANCELLED');
  });

  it('answers several due tasks in one lease up to max, and nothing after waitSeconds when none is due', async () => {
    const taskType = h.taskType('pull.max');
    for (let i = 0; i < 3; i++) await h.create(pullTask(taskType, { taskId: uniqueId(`max${i}`) }));
    const got = await waitFor(
      async () => {
        const { leases } = await lease(h, { queues: [taskType], max: 2, waitSeconds: 5 });
        return leases.length > 0 && leases;
      },
      { what: 'a lease' },
    );
    expect(got.length).toBeGreaterThanOrEqual(1);
    expect(got.length).toBeLessThanOrEqual(2);
    for (const one of got) await settle(h, 'ack', { leaseToken: one.leaseToken });
    const empty = h.taskType('pull.empty');
    const started = Date.now();
    const answer = await lease(h, { queues: [empty], waitSeconds: 1 });
    expect(answer).toMatchObject({ status: 200, leases: [] });
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe('a lease call with max > 1', () => {
  it.each([0, 1])(
    'answers the one due task at once, not holding it for more: a task due once it is taken goes to the next call at attempt 1 (run %i)',
    async () => {
      const taskType = h.taskType('pull.prompt');
      const delivery = { mode: 'pull', leaseSeconds: 30 };
      const first = await h.create(pullTask(taskType, { taskId: uniqueId('prompt-a'), delivery }));
      await waitForStatus(h, first.task.taskId, 'RUNNING');
      const waitSeconds = 20;
      const calledAt = Date.now();
      let answeredAt = 0;
      const call = lease(h, { queues: [taskType], max: 10, waitSeconds }).then((answer) => {
        answeredAt = Date.now();
        return answer;
      });
      // Once the server holds the first task (its lease shows on the task), a second falls due. An
      // answer that waited for more (the old ready-only poll held it about a second) takes it too.
      await waitFor(async () => answeredAt > 0 || (await h.get(first.task.taskId)).body.lease !== undefined, {
        intervalMs: 5,
        what: 'the first task to be leased',
      });
      const secondCreatedAt = Date.now();
      const second = await h.create(pullTask(taskType, { taskId: uniqueId('prompt-b'), delivery }));
      const answer = await call;
      expect(answer.status).toBe(200);
      expect(answer.leases.map((one) => one.task.taskId)).toEqual([first.task.taskId]);
      expect(answeredAt - calledAt).toBeLessThan(waitSeconds * 1000);
      // A poll of that call still open when it answered costs the second task nothing.
      const next = await leaseOne(h, { queues: [taskType], max: 10, waitSeconds });
      const secondLeasedAt = Date.now();
      expect(next.task).toMatchObject({ taskId: second.task.taskId, attempt: 1 });
      console.log(
        `max 10, one due task: answered in ${answeredAt - calledAt} ms; ` +
          `the task due after it: due -> leased by the next call ${secondLeasedAt - secondCreatedAt} ms, attempt ${next.task.attempt}`,
      );
      for (const leased of [answer.leases[0]!, next])
        await settle(h, 'ack', { leaseToken: leased.leaseToken });
      expect((await waitForStatus(h, second.task.taskId, 'SUCCEEDED')).attempts).toBe(1);
      expect((await waitForStatus(h, first.task.taskId, 'SUCCEEDED')).attempts).toBe(1);
    },
  );
});

describe('bad input', () => {
  it.each([
    ['both targets', { callbackUrl: 'https://x.example/cb', delivery: { mode: 'pull' } }, 'delivery'],
    [
      'leaseSeconds below the bound',
      { delivery: { mode: 'pull', leaseSeconds: 1 } },
      'delivery.leaseSeconds',
    ],
    [
      'leaseSeconds above the bound',
      { delivery: { mode: 'pull', leaseSeconds: 3601 } },
      'delivery.leaseSeconds',
    ],
    ['an unknown mode', { delivery: { mode: 'push' } }, 'delivery.mode'],
    ['a bad queue name', { delivery: { mode: 'pull', queue: 'A/B' } }, 'delivery.queue'],
  ])('a create with %s is refused naming the field, and nothing is created', async (_, fields, field) => {
    const taskId = uniqueId('bad');
    const answer = await h.create({
      taskType: h.taskType('pull.bad'),
      payload: {},
      delaySeconds: 60,
      taskId,
      ...fields,
    });
    expect(answer.status).toBe(400);
    const body = answer.raw as { error: { code: string; details: { field: string }[] } };
    expect(body.error.code).toBe('INVALID_ARGUMENT');
    expect(body.error.details.map((d) => d.field)).toContain(field);
    expect((await h.get(taskId)).status).toBe(404);
  });

  it('a create with neither target names callbackUrl', async () => {
    const answer = await h.create({ taskType: h.taskType('pull.none'), payload: {}, delaySeconds: 60 });
    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.raw)).toMatch(/callbackUrl.*delivery/);
  });

  it.each([
    ['max 0', { queues: ['a'], max: 0 }, 'max'],
    ['max 11', { queues: ['a'], max: 11 }, 'max'],
    ['no queue', { queues: [] }, 'queues'],
    ['waitSeconds 21', { queues: ['a'], waitSeconds: 21 }, 'waitSeconds'],
  ])('a lease with %s is refused naming the field', async (_, body, field) => {
    const answer = await lease(h, body as never);
    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.body.error.details)).toContain(field);
  });

  it('a tampered or malformed token is refused naming leaseToken, and the lease is still held', async () => {
    const taskType = h.taskType('pull.tamper');
    const { task } = await h.create(pullTask(taskType, { taskId: uniqueId('tamper') }));
    const leased = await leaseOne(h, { queues: [taskType] });
    const bytes = Buffer.from(leased.leaseToken, 'base64url');
    bytes[20] = bytes[20]! ^ 1;
    for (const leaseToken of [bytes.toString('base64url'), 'not-a-token', leased.leaseToken.slice(0, 40)]) {
      const answer = await settle(h, 'ack', { leaseToken });
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatchObject({
        code: 'INVALID_ARGUMENT',
        details: [{ field: 'leaseToken' }],
      });
    }
    expect((await h.get(task.taskId)).body.status).toBe('RUNNING');
    expect((await settle(h, 'ack', { leaseToken: leased.leaseToken })).status).toBe(200);
  });
});
