/**
 * A consumer killed with SIGKILL while its handler runs loses nothing (docs/workers.md, Guarantees):
 * real consumer processes (the TypeScript SDK's PullWorker, test/fixtures/pull-consumer.ts) lease
 * over HTTP from the API listening on loopback. The first is killed mid-handler, after it extended
 * its lease at least once; the lease runs out, the attempt counts as failed, and a second consumer
 * gets the task as attempt 2 with the same idempotency key, runs its effect once and acks once.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness } from '../helpers/harness.js';
import { lease, pullTask } from '../helpers/pull.js';
import { uniqueId, waitForStatus } from '../helpers/tasks.js';
import { waitFor } from '../helpers/wait.js';

const CONSUMER = fileURLToPath(new URL('../fixtures/pull-consumer.ts', import.meta.url));
const LEASE_SECONDS = 3;

interface ConsumerEvent {
  event: string;
  taskId?: string;
  attempt?: number;
  idempotencyKey?: string;
  message?: string;
  at: number;
}

/** A consumer process and the events it printed. */
class Consumer {
  readonly events: ConsumerEvent[] = [];
  readonly exited: Promise<NodeJS.Signals | number | null>;

  constructor(readonly child: ChildProcess) {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      try {
        this.events.push({ ...(JSON.parse(line) as ConsumerEvent), at: Date.now() });
      } catch {
        this.events.push({ event: 'output', message: line, at: Date.now() });
      }
    });
    this.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)));
  }

  async next(event: string, what: string): Promise<ConsumerEvent> {
    return waitFor(() => this.events.find((e) => e.event === event), {
      timeoutMs: 45_000,
      intervalMs: 50,
      what: `${what} (events so far: ${JSON.stringify(this.events)})`,
    });
  }
}

let h: Harness;
let base: string;
const started: Consumer[] = [];
beforeAll(async () => {
  h = await Harness.start({ env: { LEASE_MIN_SECONDS: '2' } });
  await h.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const consumer of started) {
    if (consumer.child.exitCode === null && consumer.child.signalCode === null)
      consumer.child.kill('SIGKILL');
    await consumer.exited;
  }
  await h?.stop();
});

function startConsumer(
  queue: string,
  taskType: string,
  identity: string,
  mode: 'hang' | 'work',
  effects: string,
) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', CONSUMER, base, queue, taskType, identity, mode, effects],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const consumer = new Consumer(child);
  started.push(consumer);
  return consumer;
}

describe('a consumer killed with SIGKILL mid-task', () => {
  it('loses nothing: the lease expires, a second consumer gets attempt 2 with the same key, and the task SUCCEEDS once', async () => {
    const taskType = h.taskType('pull.crash');
    const taskId = uniqueId('pull-crash');
    const effects = join(mkdtempSync(join(tmpdir(), 'pull-crash-')), 'effects.jsonl');
    const first = startConsumer(taskType, taskType, 'consumer-1', 'hang', effects);
    await first.next('ready', 'the first consumer ready');
    const created = await h.create(
      pullTask(taskType, {
        taskId,
        payload: { orderId: 'o-1' },
        maxRetries: 3,
        delivery: { mode: 'pull', leaseSeconds: LEASE_SECONDS },
      }),
    );
    expect(created.status).toBe(201);

    const one = await first.next('started', 'the first handler to start');
    expect(one).toMatchObject({ taskId, attempt: 1, idempotencyKey: taskId });
    // The consumer holds the lease and extends it while its handler runs: the lease moves on.
    const held = await waitFor(
      async () => {
        const { body } = await h.get(taskId);
        return body.lease?.workerIdentity === 'consumer-1' && body.lease;
      },
      { what: 'the lease held by consumer-1' },
    );
    await waitFor(
      async () => {
        const { body } = await h.get(taskId);
        return Date.parse(body.lease?.expiresAt ?? '0') > Date.parse(held.expiresAt);
      },
      { what: 'an extension by consumer-1' },
    );

    first.child.kill('SIGKILL');
    const killedAt = Date.now();
    expect(await first.exited).toBe('SIGKILL');

    const second = startConsumer(taskType, taskType, 'consumer-2', 'work', effects);
    const two = await second.next('started', 'the second handler to start');
    const redeliveredMs = two.at - killedAt;
    console.log(
      `SIGKILL mid-task: attempt 2 started ${redeliveredMs} ms after the kill (lease ${LEASE_SECONDS} s)`,
    );
    expect(two).toMatchObject({ taskId, attempt: 2, idempotencyKey: one.idempotencyKey });
    await second.next('effect', 'the effect of attempt 2');

    const done = await waitForStatus(h, taskId, 'SUCCEEDED');
    expect(done.attempts).toBe(2);
    expect(done.attemptHistory?.map((a) => a.outcome)).toEqual(['RETRYABLE_ERROR', 'SUCCEEDED']);
    expect(done.attemptHistory?.[0]?.error).toMatch(/lease expired/);
    expect(done.lease).toBeUndefined();
    // One effect, by the second consumer, and nothing of the task left on the queue.
    const lines = readFileSync(effects, 'utf8').trim().split('\n');
    expect(lines.map((line) => JSON.parse(line) as unknown)).toEqual([
      { key: taskId, attempt: 2, identity: 'consumer-2' },
    ]);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    expect(second.events.filter((e) => e.event === 'started')).toHaveLength(1);
    expect(second.events.filter((e) => e.event === 'error')).toEqual([]);
    expect((await lease(h, { queues: [taskType], waitSeconds: 1 })).leases).toEqual([]);
  });
});
