/**
 * Our service through its HTTP API: `POST /api/v1/tasks` on the API process(es), keep-alive pools.
 * The stack (server, worker, API processes) is shared with ours-direct and owned by the SystemPool.
 */
import { Pool } from 'undici';
import type { ProcessRef } from '../infra/memory.js';
import type { PersistenceTotals } from '../infra/temporal-server.js';
import type { OursStack } from './ours-stack.js';
import { createRequest, type BenchTask, type System } from './system.js';

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
    const { status, text } = await this.post('/api/v1/tasks', createRequest(task));
    if (status !== 201) throw new Error(`API answered ${status}: ${text.slice(0, 200)}`);
  }

  /** `POST /api/v1/tasks/batch`: each item's status and error code; throws unless the request is 200. */
  async createBatch(tasks: readonly BenchTask[]): Promise<{ status: number; code?: string }[]> {
    const { status, text } = await this.post('/api/v1/tasks/batch', { tasks: tasks.map(createRequest) });
    if (status !== 200) throw new Error(`API answered ${status}: ${text.slice(0, 200)}`);
    const { results } = JSON.parse(text) as { results: { status: number; error?: { code: string } }[] };
    return results.map((result) => ({
      status: result.status,
      ...(result.error ? { code: result.error.code } : {}),
    }));
  }

  private async post(path: string, body: unknown): Promise<{ status: number; text: string }> {
    const pool = this.pools[this.next++ % this.pools.length]!;
    const response = await pool.request({
      method: 'POST',
      path,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
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
    await Promise.all(this.pools.map((pool) => pool.close()));
  }
}
