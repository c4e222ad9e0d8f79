/**
 * The engine's floor: floor-workflow.ts (sleep, one local activity, nothing else) started with the
 * Temporal client and run by a worker process of its own, on the server of ours' stack (idle while
 * this system runs, as ours-direct uses it). Ours ÷ this is our overhead over Temporal itself.
 */
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { Child } from '../infra/child.js';
import type { ProcessRef } from '../infra/memory.js';
import type { PersistenceTotals } from '../infra/temporal-server.js';
import type { OursStack } from './ours-stack.js';
import type { BenchTask, System, SystemEnv } from './system.js';

const TASK_QUEUE = 'bench-floor';

export class TemporalFloor implements System {
  readonly name = 'temporal-floor';
  readonly storeKind = 'SQLite file';

  private constructor(
    private readonly stack: OursStack,
    private readonly worker: Child,
    private readonly connection: Connection,
    private readonly client: Client,
  ) {}

  static async start(env: SystemEnv, stack: OursStack): Promise<TemporalFloor> {
    const worker = Child.start({
      name: 'floor-worker',
      command: process.execPath,
      args: [env.entries.floorWorker],
      env: {
        ...process.env,
        TEMPORAL_ADDRESS: stack.server.address,
        TASK_QUEUE,
        WORKFLOWS_PATH: join(env.root, 'bench/systems/floor-workflow.ts'),
      },
      logPath: join(env.runDir, 'floor-worker.log'),
      ipc: true,
    });
    await worker.ready;
    const connection = await Connection.connect({ address: stack.server.address });
    return new TemporalFloor(stack, worker, connection, new Client({ connection }));
  }

  async create(task: BenchTask): Promise<void> {
    await this.client.workflow.start('floorTask', {
      taskQueue: TASK_QUEUE,
      workflowId: task.taskId,
      args: [
        {
          taskId: task.taskId,
          taskType: task.taskType,
          payload: task.payload,
          executeAt: new Date(task.executeAtMs).toISOString(),
          callbackUrl: task.callbackUrl,
        },
      ],
    });
  }

  processes(): ProcessRef[] {
    return [
      { role: 'worker', pid: this.worker.pid, kind: 'service' },
      { role: 'temporal', pid: this.stack.server.child.pid, kind: 'store' },
    ];
  }

  async storeBytes(): Promise<number> {
    return this.stack.server.dbBytes();
  }

  persistence(): Promise<PersistenceTotals> {
    return this.stack.server.persistence();
  }

  async stop(): Promise<void> {
    await this.connection.close();
    await this.worker.stop(30_000);
  }
}
