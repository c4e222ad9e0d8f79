/**
 * conformance/pull/shell-vectors.json: the PullWorker's behaviour, a unit test of the shell against
 * a loopback fake server that speaks the lease wire and answers only when a step says so (the
 * format is in conformance/pull/README.md). The handlers are gated: each ends when a step says how.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { readFileSync } from 'node:fs';
import { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DelayedTasksClient,
  InMemoryIdempotencyStore,
  PermanentError,
  PullWorker,
  type LeasedTask,
} from '../src/index.js';

interface Step {
  op:
    | 'expectLease'
    | 'expectCall'
    | 'expectHandler'
    | 'finish'
    | 'expectIdle'
    | 'shutdown'
    | 'expectStopped'
    | 'claim';
  body?: unknown;
  answer?: WireLeaseSpec[] | { status: number; code: string };
  verb?: string;
  leaseToken?: string;
  task?: Record<string, unknown>;
  outcome?: 'return' | 'throw' | 'permanent';
  message?: string;
  ms?: number;
  timeoutMs?: number;
  key?: string;
  expect?: string;
}
interface WireLeaseSpec {
  leaseToken: string;
  leaseExpiresAt: { $inMs: number };
  task: { taskId: string } & Record<string, unknown>;
}
interface ShellCase {
  name: string;
  worker: {
    handlers: string[];
    concurrency?: number;
    queues?: string[];
    workerIdentity?: string;
    store?: Record<string, 'DONE' | 'IN_PROGRESS'>;
  };
  steps: Step[];
  expect: { handlerCalls: number };
}

const cases = JSON.parse(
  readFileSync(new URL('../../../conformance/pull/shell-vectors.json', import.meta.url), 'utf8'),
) as ShellCase[];

const WAIT_MS = 5000;

/** One request the fake holds until a step answers it. */
interface Held {
  path: string;
  body: Record<string, unknown>;
  answer(status: number, body: unknown): void;
}

/** A queue whose `next()` waits up to WAIT_MS for an item. */
class Inbox<T> {
  private readonly items: T[] = [];
  private waiter: (() => void) | undefined;
  arrived = 0;

  push(item: T): void {
    this.items.push(item);
    this.arrived++;
    this.waiter?.();
  }

  get size(): number {
    return this.items.length;
  }

  async next(what: string): Promise<T> {
    const deadline = Date.now() + WAIT_MS;
    while (this.items.length === 0) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no ${what} within ${WAIT_MS} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiter = () => (clearTimeout(timer), resolve());
      });
    }
    return this.items.shift() as T;
  }
}

/** The fake service: lease requests and the other verbs, each in its inbox. */
class FakeLeases {
  leases = new Inbox<Held>();
  calls = new Inbox<Held>();
  private readonly server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const held: Held = {
        path: req.url ?? '',
        body: JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>,
        answer: (status, body) => {
          if (!res.destroyed)
            res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
        },
      };
      (held.path === '/api/v1/leases' ? this.leases : this.calls).push(held);
    });
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** Exact JSON equality, `{"$match": "nonEmptyString"}` matching any non-empty string. */
function expectBody(actual: unknown, expected: unknown, path: string): void {
  if (expected !== null && typeof expected === 'object' && '$match' in expected) {
    expect(typeof actual === 'string' && actual.length > 0, `${path} is a non-empty string`).toBe(true);
  } else if (expected !== null && typeof expected === 'object' && !Array.isArray(expected)) {
    expect(Object.keys(actual as object).sort(), `${path} keys`).toEqual(Object.keys(expected).sort());
    for (const [key, item] of Object.entries(expected)) {
      expectBody((actual as Record<string, unknown>)[key], item, `${path}.${key}`);
    }
  } else {
    expect(actual, path).toEqual(expected);
  }
}

function errorBody(code: string) {
  return { error: { code, message: code, details: [] } };
}

/** What a handler got and how it will end. */
interface Gate {
  task: LeasedTask;
  finish(outcome: Step['outcome'], message?: string): void;
}

async function play(c: ShellCase, baseUrl: string, fake: FakeLeases): Promise<void> {
  const client = new DelayedTasksClient({ baseUrl, retry: { maxRetries: 0, baseDelayMs: 0, maxDelayMs: 0 } });
  let store: InMemoryIdempotencyStore | undefined;
  if (c.worker.store) {
    store = new InMemoryIdempotencyStore();
    for (const [key, state] of Object.entries(c.worker.store)) {
      await store.claim(key, 3600_000);
      if (state === 'DONE') await store.complete(key);
    }
  }
  const worker = new PullWorker(client, {
    concurrency: c.worker.concurrency,
    queues: c.worker.queues,
    workerIdentity: c.worker.workerIdentity,
    idempotencyStore: store,
    onError: () => undefined,
  });
  const gates = new Inbox<Gate>();
  const started = new Map<string, Gate>();
  const tokenOfTask = new Map<string, string>();
  const leaseMs = new Map<string, number>();
  let handlerCalls = 0;
  for (const type of c.worker.handlers) {
    worker.handle(type, (task) => {
      handlerCalls++;
      return new Promise<void>((resolve, reject) => {
        gates.push({
          task,
          finish: (outcome, message = '') => {
            if (outcome === 'return') resolve();
            else reject(outcome === 'permanent' ? new PermanentError(message) : new Error(message));
          },
        });
      });
    });
  }
  const running = worker.run();
  let stopping: Promise<void> | undefined;
  const inMs = (ms: number) => new Date(Date.now() + ms).toISOString();

  /** Waits until the handler of `token` started (handlers may start in any order). */
  async function handlerOf(token: string): Promise<Gate> {
    while (!started.has(token)) {
      const gate = await gates.next(`handler start of ${token}`);
      started.set(tokenOfTask.get(gate.task.taskId) ?? gate.task.taskId, gate);
    }
    return started.get(token) as Gate;
  }

  try {
    for (const [index, step] of c.steps.entries()) {
      const at = `step ${index} (${step.op})`;
      switch (step.op) {
        case 'expectLease': {
          const held = await fake.leases.next(`lease request at ${at}`);
          expectBody(held.body, step.body, `${at} body`);
          if (Array.isArray(step.answer)) {
            const leases = step.answer.map((lease) => {
              tokenOfTask.set(lease.task.taskId, lease.leaseToken);
              leaseMs.set(lease.leaseToken, lease.leaseExpiresAt.$inMs);
              return { ...lease, leaseExpiresAt: inMs(lease.leaseExpiresAt.$inMs) };
            });
            held.answer(200, { leases });
          } else if (step.answer) {
            held.answer(step.answer.status, errorBody(step.answer.code));
          }
          break;
        }
        case 'expectCall': {
          const held = await fake.calls.next(`${step.verb} at ${at}`);
          expect(held.path, `${at} path`).toBe(`/api/v1/leases/${step.verb}`);
          expectBody(held.body, step.body, `${at} body`);
          const token = held.body.leaseToken as string;
          const taskId = [...tokenOfTask].find(([, t]) => t === token)?.[0];
          if (step.answer && !Array.isArray(step.answer)) {
            held.answer(step.answer.status, errorBody(step.answer.code));
          } else if (step.verb === 'extend') {
            held.answer(200, { leaseExpiresAt: inMs(leaseMs.get(token) ?? 60_000) });
          } else {
            const failed = step.verb === 'nack' && held.body.retryable === false;
            const status = step.verb === 'ack' ? 'SUCCEEDED' : failed ? 'FAILED' : 'RUNNING';
            held.answer(200, { taskId, status });
          }
          break;
        }
        case 'expectHandler': {
          const gate = await handlerOf(step.leaseToken as string);
          const task = JSON.parse(JSON.stringify(gate.task)) as Record<string, unknown>;
          for (const [field, value] of Object.entries(step.task ?? {})) {
            expect(task[field], `${at} task.${field}`).toEqual(value);
          }
          break;
        }
        case 'finish':
          (await handlerOf(step.leaseToken as string)).finish(step.outcome, step.message);
          break;
        case 'expectIdle': {
          const before = [fake.leases.arrived, fake.calls.arrived, gates.arrived];
          // An absence is only seen by waiting: nothing may arrive for this long.
          await new Promise((resolve) => setTimeout(resolve, step.ms));
          expect([fake.leases.arrived, fake.calls.arrived, gates.arrived], `${at}: nothing arrives`).toEqual(
            before,
          );
          break;
        }
        case 'shutdown':
          stopping = worker.shutdown(step.timeoutMs);
          break;
        case 'expectStopped': {
          let timer: NodeJS.Timeout | undefined;
          const late = new Promise((_, reject) => {
            timer = setTimeout(() => reject(new Error(`${at}: not stopped within ${WAIT_MS} ms`)), WAIT_MS);
          });
          await Promise.race([Promise.all([running, stopping]), late]).finally(() => clearTimeout(timer));
          break;
        }
        case 'claim':
          expect((await store?.claim(step.key as string))?.result, at).toBe(step.expect);
          break;
      }
    }
  } finally {
    await worker.shutdown(100);
    await running;
    for (const gate of started.values()) gate.finish('return');
  }
  expect(fake.calls.size, 'calls no step took').toBe(0);
  expect(handlerCalls, 'handler calls').toBe(c.expect.handlerCalls);
}

describe('pull/shell-vectors.json: PullWorker against a fake lease server (unit)', () => {
  let fake: FakeLeases;
  let baseUrl: string;
  beforeAll(async () => {
    fake = new FakeLeases();
    baseUrl = await fake.start();
  });
  afterAll(() => fake.stop());

  it.each(cases.map((c) => [c.name, c] as const))('%s', async (_, c) => {
    fake.leases = new Inbox();
    fake.calls = new Inbox();
    await play(c, baseUrl, fake);
  });
});
