/**
 * Our service through its HTTP API: `POST /api/v1/tasks` on the API process(es), keep-alive pools.
 * The stack (server, worker, API processes) is shared with ours-direct and owned by the SystemPool.
 */
import { Pool } from 'undici';
import type { ProcessRef } from '../infra/memory.js';
import type { PersistenceTotals } from '../infra/temporal-server.js';
import type { OursStack } from './ours-stack.js';
import type { BenchTask, System } from './system.js';

export class OursApi implements System {
  readonly name = 'ours-api';
  readonly storeKind = 'SQLite file';
  private next = 0;

  private constructor(
    private readonly stack: OursStack,
    private readonly pools: readonly Pool[],
  ) {}

  static start(stack: OursStack): OursApi {
    return new OursApi(
      stack,
      stack.apiUrls.map((url) => new Pool(url, { connections: 128, keepAliveTimeout: 30_000 })),
    );
  }

  async create(task: BenchTask): Promise<void> {
    const pool = this.pools[this.next++ % this.pools.length]!;
    const response = await pool.request({
      method: 'POST',
      path: '/api/v1/tasks',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        taskId: task.taskId,
        taskType: task.taskType,
        payload: task.payload,
        executeAt: new Date(task.executeAtMs).toISOString(),
        callbackUrl: task.callbackUrl,
        maxRetries: task.maxRetries,
      }),
    });
    const text = await response.body.text();
    if (response.statusCode !== 201)
      throw new Error(`API answered ${response.statusCode}: ${text.slice(0, 200)}`);
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
    await Promise.all(this.pools.map((pool) => pool.close()));
  }
}
