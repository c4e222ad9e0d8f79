/**
 * The engine limit: the same workflow, started with the same options as TaskService.start, straight
 * from @temporalio/client in the benchmark process, and run by the same worker process (the stack is
 * shared with ours-api). No HTTP API.
 */
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { buildTaskSpec } from '../../src/api/task-input.js';
import { loadConfig } from '../../src/config.js';
import { Policies } from '../../src/policies.js';
import { SEARCH_ATTRIBUTES, TASK_WORKFLOW_TYPE } from '../../src/shared/constants.js';
import type { delayedTask } from '../../src/workflows/delayed-task.js';
import type { ProcessRef } from '../infra/memory.js';
import type { PersistenceTotals } from '../infra/temporal-server.js';
import type { OursStack } from './ours-stack.js';
import type { BenchTask, System } from './system.js';

export class OursDirect implements System {
  readonly name = 'ours-direct';
  readonly storeKind = 'SQLite file';
  private readonly policies = new Policies();
  private readonly limits = loadConfig({}).limits;

  private constructor(
    private readonly stack: OursStack,
    private readonly connection: Connection,
    private readonly client: Client,
  ) {}

  static async start(stack: OursStack): Promise<OursDirect> {
    const connection = await Connection.connect({ address: stack.server.address });
    return new OursDirect(stack, connection, new Client({ connection }));
  }

  async create(task: BenchTask): Promise<void> {
    const policy = this.policies.forType(task.taskType)!;
    const { spec, fingerprint } = buildTaskSpec(
      {
        taskId: task.taskId,
        taskType: task.taskType,
        payload: task.payload,
        executeAt: new Date(task.executeAtMs).toISOString(),
        callbackUrl: task.callbackUrl,
        maxRetries: task.maxRetries,
      },
      {
        now: Date.now(),
        limits: this.limits,
        policy,
        callbackTaskQueue: Policies.taskQueue(this.stack.taskQueue, policy),
        newTaskId: randomUUID,
      },
    );
    // The options of TaskService.start (src/api/task-service.ts), verbatim.
    await this.client.workflow.start<typeof delayedTask>(TASK_WORKFLOW_TYPE, {
      workflowId: spec.taskId,
      taskQueue: this.stack.taskQueue,
      args: [spec],
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      typedSearchAttributes: [
        { key: SEARCH_ATTRIBUTES.taskType, value: spec.taskType },
        { key: SEARCH_ATTRIBUTES.taskStatus, value: 'SCHEDULED' },
        { key: SEARCH_ATTRIBUTES.executeAt, value: new Date(spec.executeAt) },
      ],
      memo: {
        specHash: fingerprint,
        createdAt: spec.createdAt,
        callbackUrl: spec.callbackUrl,
        priority: spec.priority,
        executeAt: spec.executeAt,
      },
      staticSummary: `${spec.taskType} → POST ${spec.callbackUrl}, due ${spec.executeAt}`,
      staticDetails: [
        `**Task type:** ${spec.taskType}`,
        `**Callback:** POST ${spec.callbackUrl}`,
        `**Due:** ${spec.executeAt}`,
        `**Retries:** ${spec.maxRetries}, **timeout:** ${spec.timeoutMs} ms, **priority:** ${spec.priority}`,
      ].join('\n'),
    });
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
