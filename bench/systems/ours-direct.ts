/**
 * The engine limit: the same workflow, started with the same options as TaskService.start, straight
 * from @temporalio/client in the benchmark process, and run by the same worker process (the stack is
 * shared with ours-api). No HTTP API.
 */
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { buildTaskSpec } from '../../src/tasks/input.js';
import { loadConfig } from '../../src/config/environment.js';
import { Policies } from '../../src/task-types/policies.js';
import { CallbackGuard } from '../../src/security/callback-guard.js';
import { taskStartOptions } from '../../src/tasks/start-options.js';
import { TASK_WORKFLOW_TYPE } from '../../src/shared/constants.js';
import { DEFAULT_OWNER } from '../../src/shared/owner.js';
import type { delayedTask } from '../../src/workflows/delayed-task.js';
import type { ProcessRef } from '../infra/memory.js';
import type { PersistenceTotals } from '../infra/temporal-server.js';
import { loadPayloadKeyring } from '../../src/security/payload-codec.js';
import { createDataConverter } from '../../src/temporal/data-converter.js';
import { encryptionEnv, type OursStack } from './ours-stack.js';
import { createRequest, type BenchTask, type System } from './system.js';
import { routeNewTask } from '../../src/shared/task-queues.js';

export class OursDirect implements System {
  readonly name = 'ours-direct';
  readonly storeKind = 'SQLite file';
  private readonly policies = new Policies();
  // The benchmark's receiver is on loopback: allowed here as in the stack's environment (ours-stack.ts).
  private readonly config: ReturnType<typeof loadConfig>;
  private readonly guard: CallbackGuard;

  private constructor(
    private readonly stack: OursStack,
    private readonly connection: Connection,
    private readonly client: Client,
  ) {
    // The API's settings, so that tasks start as the API starts them.
    this.config = loadConfig({ ...stack.apiEnv, CALLBACK_ALLOW_CIDRS: '127.0.0.0/8,::1/128' });
    this.guard = new CallbackGuard(this.config.callbacks);
  }

  static async start(stack: OursStack): Promise<OursDirect> {
    const connection = await Connection.connect({ address: stack.server.address });
    // The same data converter as the API's client: encrypted when the stack is.
    const { encryption } = loadConfig(encryptionEnv(stack.encryptionKey));
    const dataConverter = createDataConverter(loadPayloadKeyring(encryption));
    return new OursDirect(stack, connection, new Client({ connection, dataConverter }));
  }

  async create(task: BenchTask): Promise<void> {
    const policy = this.policies.forType(task.taskType)!;
    const { workflowTaskQueue, ...routing } = routeNewTask(this.stack.taskQueue, policy);
    const { spec, fingerprint } = buildTaskSpec(createRequest(task), {
      owner: DEFAULT_OWNER,
      now: Date.now(),
      limits: this.config.limits,
      policy,
      ...routing,
      newTaskId: randomUUID,
      guard: this.guard,
    });
    // Exactly how the API starts a task (src/tasks/commands.ts).
    await this.client.workflow.start<typeof delayedTask>(
      TASK_WORKFLOW_TYPE,
      taskStartOptions(spec, fingerprint, workflowTaskQueue, 'REJECT_DUPLICATE'),
    );
  }

  /** The worker and the server; the API processes idle while this system runs. */
  processes(): ProcessRef[] {
    return this.stack.processes().filter((p) => !p.role.startsWith('api'));
  }

  async storeBytes(): Promise<number> {
    return this.stack.server.dbBytes();
  }

  persistence(): Promise<PersistenceTotals> {
    return this.stack.server.persistence();
  }

  async stop(): Promise<void> {
    await this.connection.close();
  }
}
