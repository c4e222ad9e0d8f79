/** The floor: settimeout-server.ts in its own process, fed over loopback HTTP. No store. */
import { join } from 'node:path';
import { Pool } from 'undici';
import { Child } from '../infra/child.js';
import type { ProcessRef } from '../infra/memory.js';
import { freePort } from '../infra/ports.js';
import type { BenchTask, System, SystemEnv } from './system.js';

export class SetTimeoutFloor implements System {
  readonly name = 'settimeout';
  readonly storeKind = undefined;

  private constructor(
    private readonly child: Child,
    private readonly pool: Pool,
  ) {}

  static async start(env: SystemEnv): Promise<SetTimeoutFloor> {
    const port = await freePort();
    const child = Child.start({
      name: 'settimeout',
      command: process.execPath,
      args: [env.entries.settimeoutServer, String(port)],
      logPath: join(env.runDir, 'settimeout.log'),
      ipc: true,
    });
    await child.ready;
    return new SetTimeoutFloor(
      child,
      new Pool(`http://127.0.0.1:${port}`, { connections: 128, keepAliveTimeout: 30_000 }),
    );
  }

  async create(task: BenchTask): Promise<void> {
    const response = await this.pool.request({
      method: 'POST',
      path: '/tasks',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(task),
    });
    await response.body.dump();
    if (response.statusCode !== 201) throw new Error(`floor answered ${response.statusCode}`);
  }

  processes(): ProcessRef[] {
    return [{ role: 'process', pid: this.child.pid, kind: 'service' }];
  }

  async storeBytes(): Promise<undefined> {
    return undefined;
  }

  async stop(): Promise<void> {
    await this.pool.close();
    await this.child.stop();
  }
}
