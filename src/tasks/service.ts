/**
 * The task domain, as the API and the console use it: commands (create, cancel, reschedule, replay),
 * the reader (one task), visibility (many tasks, counts) and bulk operations, over one set of
 * Temporal calls under the API's deadline. Wiring only; each part is in its own module.
 */
import type { Connection, DataConverter, WorkflowClientInterceptor } from '@temporalio/client';
import type { TaskAccess } from '../auth/principal.js';
import type { Config } from '../config/environment.js';
import type {
  CreateTaskBody,
  ListTasksQuery,
  ReplayBody,
  RescheduleBody,
  Task,
  TaskList,
} from '../contract/tasks.js';
import type { BatchJob, BulkCancelBody, BulkReplayBody } from '../contract/batches.js';
import type { Policies } from '../task-types/policies.js';
import type { Resolver } from '../security/callback-guard.js';
import { randomBytes } from 'node:crypto';
import { TemporalCalls } from '../temporal/calls.js';
import { LeaseTokens } from './lease-token.js';
import { LeaseService } from './leases.js';
import { BulkOperations } from './bulk.js';
import { TaskCommands, type CreateResult, type PreparedCreate } from './commands.js';
import { TaskReader } from './reader.js';
import { toTask } from './views.js';
import { TaskVisibility } from './visibility.js';

export type { CreateResult, PreparedCreate } from './commands.js';

export interface TaskServiceOptions {
  connection: Connection;
  config: Readonly<Config>;
  policies: Policies;
  now?: () => number;
  /** Resolves callback hosts at create (the SSRF guard); the system resolver by default. */
  resolve?: Resolver;
  /** Payload codec and failure converter (encryption); Temporal's defaults when absent. */
  dataConverter?: DataConverter;
  /** Workflow client interceptors (tracing: src/observability/tracing.ts). */
  clientInterceptors?: WorkflowClientInterceptor[];
  /** Seals pull delivery's lease tokens; a random key of this process when absent. */
  leaseTokens?: LeaseTokens;
}

export class TaskService {
  /** Lists and counts (the console's charts and the API's gauges count through it). */
  readonly visibility: TaskVisibility;
  private readonly temporal: TemporalCalls;
  private readonly reader: TaskReader;
  private readonly commands: TaskCommands;
  private readonly bulk: BulkOperations;
  /** Pull delivery's lease, ack, nack, extend and release. */
  readonly leases: LeaseService;

  constructor(private readonly options: TaskServiceOptions) {
    const { config } = options;
    const now = options.now ?? Date.now;
    this.temporal = new TemporalCalls({
      connection: options.connection,
      namespace: config.temporal.namespace,
      rpcTimeoutMs: config.temporal.rpcTimeoutMs,
      ...(options.dataConverter && { dataConverter: options.dataConverter }),
      ...(options.clientInterceptors && { interceptors: options.clientInterceptors }),
    });
    this.reader = new TaskReader(this.temporal, now);
    this.visibility = new TaskVisibility(this.temporal, config.temporal.taskQueue);
    this.commands = new TaskCommands({
      temporal: this.temporal,
      reader: this.reader,
      config,
      policies: options.policies,
      now,
      resolve: options.resolve,
    });
    this.bulk = new BulkOperations(this.temporal, this.visibility, now);
    this.leases = new LeaseService({
      temporal: this.temporal,
      connection: options.connection,
      policies: options.policies,
      baseQueue: config.temporal.taskQueue,
      tokens: options.leaseTokens ?? new LeaseTokens(randomBytes(32)),
      reader: this.reader,
      now,
    });
  }

  /** The task-type policies requests are checked against. */
  get policies(): Policies {
    return this.options.policies;
  }

  /**
   * Creates a task for `access.owner`; the same id with the same spec returns the existing task
   * (`created: false`). Idempotency is per owner: another owner's task of the same id is another task.
   */
  async create(access: TaskAccess, body: CreateTaskBody): Promise<CreateResult> {
    return this.commands.commit(await this.commands.prepare(access, body));
  }

  prepare(access: TaskAccess, body: CreateTaskBody): Promise<PreparedCreate> {
    return this.commands.prepare(access, body);
  }

  commit(prepared: PreparedCreate): Promise<CreateResult> {
    return this.commands.commit(prepared);
  }

  /** A task of `owner`; another owner's task of this id answers 404 as an absent one does. */
  async get(owner: string, taskId: string): Promise<Task> {
    const state = await this.reader.state(owner, taskId);
    return toTask(state, await this.reader.lease(state));
  }

  cancel(access: TaskAccess, taskId: string): Promise<Task> {
    return this.commands.cancel(access, taskId);
  }

  reschedule(access: TaskAccess, taskId: string, body: RescheduleBody): Promise<Task> {
    return this.commands.reschedule(access, taskId, body);
  }

  replay(access: TaskAccess, taskId: string, body: ReplayBody): Promise<Task> {
    return this.commands.replay(access, taskId, body);
  }

  list(owner: string | undefined, query: Omit<ListTasksQuery, 'owner'>): Promise<TaskList> {
    return this.visibility.list(owner, query);
  }

  bulkReplay(body: BulkReplayBody): Promise<BatchJob> {
    return this.bulk.replay(body);
  }

  bulkCancel(body: BulkCancelBody): Promise<BatchJob> {
    return this.bulk.cancel(body);
  }

  batch(jobId: string): Promise<BatchJob> {
    return this.bulk.describe(jobId);
  }

  /** Temporal answers and the namespace exists. */
  ready(): Promise<void> {
    return this.temporal.ready();
  }
}
