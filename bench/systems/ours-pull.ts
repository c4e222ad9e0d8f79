/**
 * Our service with pull delivery: the same stack and API as ours-api, but each task is created with
 * `delivery: {mode: 'pull'}` and CONSUMERS loops in this process lease it (`POST /api/v1/leases`) and
 * ack it (`POST /api/v1/leases/ack`). The handler of a lease is a POST of the callback body to the
 * benchmark's receiver, sent as soon as the lease answer is read: the receiver's arrival time is the
 * handler's start (plus one loopback request), so the scenarios measure fire lag and CPU as they do
 * for the callback path. The consumers' own CPU is the benchmark process's, not counted.
 */
import { setMaxListeners } from 'node:events';
import { Pool } from 'undici';
import type { ProcessRef } from '../infra/memory.js';
import type { PersistenceTotals } from '../infra/temporal-server.js';
import { callbackAgent, postCallback } from './callback.js';
import type { OursStack } from './ours-stack.js';
import { createRequest, type BenchTask, type System } from './system.js';

export const PULL_QUEUE = 'bench-pull';
export const CONSUMERS = 4;

/** The create request of `task` as a pull task: no callback URL, the delivery instead. */
export function pullRequest(task: BenchTask, queue = PULL_QUEUE, leaseSeconds = 60) {
  const { callbackUrl: _callbackUrl, ...rest } = createRequest(task);
  return { ...rest, delivery: { mode: 'pull' as const, queue, leaseSeconds } };
}

interface Lease {
  leaseToken: string;
  task: {
    taskId: string;
    taskType: string;
    payload: Record<string, unknown>;
    executeAt: string;
    attempt: number;
  };
}

export class OursPull implements System {
  readonly name = 'ours-pull';
  readonly storeKind = 'SQLite file';
  /** Where each task's handler reports (the receiver's run URL), by task id. */
  private readonly callbackUrls = new Map<string, string>();
  private readonly agent = callbackAgent();
  private stopped = false;
  private readonly consumers: Promise<void>[];
  private readonly aborts = new AbortController();

  private constructor(
    private readonly stack: OursStack,
    private readonly pool: Pool,
    /** `max` of each lease call. */
    private readonly max: number,
  ) {
    // Every request of the consumers listens to the one stop signal.
    setMaxListeners(Infinity, this.aborts.signal);
    this.consumers = Array.from({ length: CONSUMERS }, (_, i) => this.consume(`bench/${i}`));
  }

  static start(stack: OursStack, max: number): OursPull {
    const url = stack.apiUrls[0];
    if (!url) throw new Error('ours-pull needs an API process');
    return new OursPull(stack, new Pool(url, { connections: 64, keepAliveTimeout: 30_000 }), max);
  }

  async create(task: BenchTask): Promise<void> {
    this.callbackUrls.set(task.taskId, task.callbackUrl);
    const { status, text } = await this.post('/api/v1/tasks', pullRequest(task));
    if (status !== 201) throw new Error(`API answered ${status}: ${text.slice(0, 200)}`);
  }

  /** One consumer: lease, run each lease's handler, ack it; again until stopped. */
  private async consume(workerIdentity: string): Promise<void> {
    while (!this.stopped) {
      try {
        const { status, text } = await this.post('/api/v1/leases', {
          queues: [PULL_QUEUE],
          max: this.max,
          waitSeconds: 20,
          workerIdentity,
        });
        if (status !== 200) throw new Error(`lease answered ${status}: ${text.slice(0, 200)}`);
        const { leases } = JSON.parse(text) as { leases: Lease[] };
        await Promise.all(leases.map((lease) => this.handle(lease)));
      } catch (err) {
        if (this.stopped) return;
        console.error(
          `ours-pull consumer ${workerIdentity}: ${err instanceof Error ? err.message : String(err)}`,
        );
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  }

  private async handle({ leaseToken, task }: Lease): Promise<void> {
    const callbackUrl = this.callbackUrls.get(task.taskId);
    if (callbackUrl) await postCallback(this.agent, { ...task, callbackUrl }, task.attempt);
    this.callbackUrls.delete(task.taskId);
    const { status, text } = await this.post('/api/v1/leases/ack', { leaseToken });
    if (status !== 200 && status !== 204) throw new Error(`ack answered ${status}: ${text.slice(0, 200)}`);
  }

  private async post(path: string, body: unknown): Promise<{ status: number; text: string }> {
    const response = await this.pool.request({
      method: 'POST',
      path,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: this.aborts.signal,
      headersTimeout: 60_000,
    });
    return { status: response.statusCode, text: await response.body.text() };
  }

  processes(): ProcessRef[] {
    return this.stack.processes();
  }

  async storeBytes(): Promise<number> {
    return this.stack.server.dbBytes();
  }

  persistence(): Promise<PersistenceTotals> {
    return this.stack.server.persistence();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.aborts.abort();
    await Promise.allSettled(this.consumers);
    await this.pool.close();
    await this.agent.close();
  }
}
