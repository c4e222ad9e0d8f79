/**
 * The task domain, as the API and the console use it: commands (create, cancel, reschedule, replay),
 * the reader (one task), visibility (many tasks, counts) and bulk operations, over one set of
 * Temporal calls under the API's deadline. Wiring only: callers use each part directly
 * (`tasks.commands.create`, `tasks.reader.task`), so every step has one owner.
 */
import type { Connection, DataConverter, WorkflowClientInterceptor } from '@temporalio/client';
import type { Config } from '../config/environment.js';
import type { Policies } from '../task-types/policies.js';
import type { Resolver } from '../security/callback-guard.js';
import { randomBytes } from 'node:crypto';
import { TemporalCalls } from '../temporal/calls.js';
import { LeaseTokens } from './lease-token.js';
import { LeaseService } from './leases.js';
import { BulkOperations } from './bulk.js';
import { TaskCommands } from './commands.js';
import { TaskReader } from './reader.js';
import { TaskVisibility } from './visibility.js';

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
  /** What changes a task: create, cancel, reschedule, replay. */
  readonly commands: TaskCommands;
  /** One task read back. */
  readonly reader: TaskReader;
  /** Lists and counts (the console's charts and the API's gauges count through it). */
  readonly visibility: TaskVisibility;
  /** Batch operations over a filter: replay, cancel, and their jobs. */
  readonly bulk: BulkOperations;
  private readonly temporal: TemporalCalls;
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

  /** Temporal answers and the namespace exists. */
  ready(): Promise<void> {
    return this.temporal.ready();
  }
}
