/**
 * What ours-pull and the broker systems (ours-redis, ours-rabbitmq, ours-kafka) share: ours-api's
 * stack and API, each task created with a delivery target instead of its callback URL, and consumers
 * in this process that read each due task and run its handler: a POST of the callback body to the
 * benchmark's receiver, sent as soon as the task is read. The receiver's arrival time is then the
 * handler's start (plus one loopback request), so the scenarios measure fire lag and CPU as they do
 * for the callback path. The consumers' own CPU is the benchmark process's, not counted.
 */
import { Pool } from 'undici';
import type { ProcessRef } from '../infra/memory.js';
import type { PersistenceTotals } from '../infra/temporal-server.js';
import { callbackAgent, postCallback } from './callback.js';
import type { OursStack } from './ours-stack.js';
import { createRequest, type BenchTask, type System, type SystemName } from './system.js';

/** A due task as a consumer reads it: the callback's body (a lease's task, a broker message's body). */
export interface DueTask {
  taskId: string;
  taskType: string;
  payload: Record<string, unknown>;
  executeAt: string;
  attempt: number;
}

/** The create request of `task` with `delivery` in place of its callback URL. */
export function deliveryRequest<D extends Record<string, unknown>>(task: BenchTask, delivery: D) {
  const { callbackUrl: _callbackUrl, ...rest } = createRequest(task);
  return { ...rest, delivery };
}

export abstract class ConsumerSystem implements System {
  abstract readonly name: SystemName;
  readonly storeKind = 'SQLite file';
  /** Where each task's handler reports (the receiver's run URL), by task id. */
  private readonly callbackUrls = new Map<string, string>();
  private readonly agent = callbackAgent();
  /** A keep-alive pool to the first API process. */
  protected readonly pool: Pool;

  protected constructor(
    protected readonly stack: OursStack,
    connections: number,
  ) {
    const url = stack.apiUrls[0];
    if (!url) throw new Error('a consumer system needs an API process');
    this.pool = new Pool(url, { connections, keepAliveTimeout: 30_000 });
  }

  /** The create request of `task`: its delivery target. */
  protected abstract request(task: BenchTask): Record<string, unknown>;

  /** Stops the consumers; resolves once none is reading. */
  protected abstract stopConsumers(): Promise<void>;

  async create(task: BenchTask): Promise<void> {
    this.callbackUrls.set(task.taskId, task.callbackUrl);
    const { status, text } = await this.post('/api/v1/tasks', this.request(task));
    if (status !== 201) throw new Error(`API answered ${status}: ${text.slice(0, 200)}`);
  }

  /** The handler of a task a consumer read; a task this system did not create (another run's) is skipped. */
  protected async handle(task: DueTask): Promise<void> {
    const callbackUrl = this.callbackUrls.get(task.taskId);
    if (!callbackUrl) return;
    await postCallback(this.agent, { ...task, callbackUrl }, task.attempt);
    this.callbackUrls.delete(task.taskId);
  }

  protected async post(
    path: string,
    body: unknown,
    signal?: AbortSignal,
  ): Promise<{ status: number; text: string }> {
    const response = await this.pool.request({
      method: 'POST',
      path,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal,
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
    await this.stopConsumers();
    await this.pool.close();
    await this.agent.close();
  }
}
