/** The benchmark's side of the callback receiver (bench/receiver.ts): starts it, reads what arrived. */
import { join } from 'node:path';
import { Pool } from 'undici';
import { Child } from './infra/child.js';
import { freePort } from './infra/ports.js';

/** One callback as the receiver saw it: [taskId, attempt, due time ms, arrival time ms, status answered]. */
export type ArrivalRow = [taskId: string, attempt: number, dueMs: number, arrivedMs: number, status: number];

export interface Arrival {
  taskId: string;
  attempt: number;
  dueMs: number;
  arrivedMs: number;
  status: number;
}

export class Receiver {
  private readonly pool: Pool;

  private constructor(
    readonly baseUrl: string,
    readonly child: Child,
  ) {
    this.pool = new Pool(baseUrl, { connections: 4 });
  }

  /** Starts the receiver process from its compiled entry point. */
  static async start(entry: string, logDir: string): Promise<Receiver> {
    const port = await freePort();
    const child = Child.start({
      name: 'receiver',
      command: process.execPath,
      args: [entry, String(port)],
      logPath: join(logDir, 'receiver.log'),
      ipc: true,
    });
    await child.ready;
    return new Receiver(`http://127.0.0.1:${port}`, child);
  }

  /** Callback URL of a run; the first `failFirst` arrivals of each task get HTTP 500. */
  callbackUrl(run: string, failFirst = 0): string {
    return `${this.baseUrl}/cb/${run}/${failFirst}`;
  }

  async count(run: string): Promise<number> {
    return ((await this.get(`/runs/${run}/count`)) as { arrivals: number }).arrivals;
  }

  async arrivals(run: string): Promise<Arrival[]> {
    const { arrivals } = (await this.get(`/runs/${run}`)) as { arrivals: ArrivalRow[] };
    return arrivals.map(([taskId, attempt, dueMs, arrivedMs, status]) => ({
      taskId,
      attempt,
      dueMs,
      arrivedMs,
      status,
    }));
  }

  async forget(run: string): Promise<void> {
    const response = await this.pool.request({ method: 'DELETE', path: `/runs/${run}` });
    await response.body.dump();
  }

  async stop(): Promise<void> {
    await this.pool.close();
    await this.child.stop();
  }

  private async get(path: string): Promise<unknown> {
    const response = await this.pool.request({ method: 'GET', path });
    if (response.statusCode !== 200)
      throw new Error(`receiver answered ${response.statusCode} to GET ${path}`);
    return response.body.json();
  }
}
