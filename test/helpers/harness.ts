/**
 * Everything one integration test file needs against the real dev server: a task queue of its own,
 * the workers (in this process), the API (driven with inject) and a callback receiver.
 */
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import type { FastifyInstance } from 'fastify';
import { inject } from 'vitest';
import { buildApp } from '../../src/api/app.js';
import { ApiMetrics, taskCountsReader } from '../../src/api/metrics.js';
import type { Task } from '../../src/api/schemas/tasks.js';
import { TaskService } from '../../src/api/task-service.js';
import { loadConfig, type Config } from '../../src/config.js';
import { Policies, type PolicyFile } from '../../src/policies.js';
import { WorkerMetrics } from '../../src/worker/metrics.js';
import { createTaskWorkers, runWorkers } from '../../src/worker/workers.js';
import { CallbackReceiver } from './receiver.js';

let runtimeInstalled = false;
/** Installs a silent Temporal runtime; first, before anything else of the SDK runs in this process. */
export function quietRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  Runtime.install({
    logger: {
      log: () => undefined,
      trace: () => undefined,
      debug: () => undefined,
      info: () => undefined,
      warn: () => undefined,
      error: () => undefined,
    },
    shutdownSignals: [],
  });
}

export interface HarnessOptions {
  policies?: PolicyFile;
  env?: Record<string, string>;
  /** Server and workflow bundle outside vitest (the history recorder); the test run's by default. */
  server?: { address: string; workflowBundlePath: string };
}

export class Harness {
  readonly taskQueue = `test-${randomUUID()}`;
  readonly workerMetrics = new WorkerMetrics();
  app!: FastifyInstance;
  receiver!: CallbackReceiver;
  client!: Client;
  config!: Readonly<Config>;
  policies!: Policies;
  tasks!: TaskService;
  private connection!: Connection;
  private nativeConnection!: NativeConnection;
  private workflowBundlePath!: string;
  private workers: Worker[] = [];
  private running: Promise<void> | undefined;

  static async start(options: HarnessOptions = {}): Promise<Harness> {
    const harness = new Harness();
    await harness.init(options);
    return harness;
  }

  private async init(options: HarnessOptions): Promise<void> {
    quietRuntime();
    const address = options.server?.address ?? inject('temporalAddress');
    this.workflowBundlePath = options.server?.workflowBundlePath ?? inject('workflowBundlePath');
    this.config = loadConfig({
      TEMPORAL_ADDRESS: address,
      TASK_QUEUE: this.taskQueue,
      LOG_LEVEL: 'silent',
      ...options.env,
    });
    this.policies = new Policies(options.policies ?? {});
    this.receiver = await CallbackReceiver.start();
    this.connection = await Connection.connect({ address });
    this.client = new Client({ connection: this.connection });
    this.nativeConnection = await NativeConnection.connect({ address });
    this.tasks = new TaskService({
      connection: this.connection,
      config: this.config,
      policies: this.policies,
    });
    const metrics = new ApiMetrics({
      readCounts: taskCountsReader(this.tasks, this.config.limits.maxScheduleAheadSeconds * 1000),
      cacheMs: 0,
    });
    this.app = await buildApp({ config: this.config, tasks: this.tasks, metrics });
    await this.startWorkers();
  }

  /** Starts the workers (again, after stopWorkers). */
  async startWorkers(): Promise<void> {
    this.workers = await createTaskWorkers({
      connection: this.nativeConnection,
      namespace: this.config.temporal.namespace,
      taskQueue: this.taskQueue,
      policies: this.policies,
      metrics: this.workerMetrics,
      workflowBundle: { codePath: this.workflowBundlePath },
    });
    this.running = runWorkers(this.workers);
  }

  /** Stops every worker and waits until they have drained. */
  async stopWorkers(): Promise<void> {
    for (const worker of this.workers) if (worker.getState() === 'RUNNING') worker.shutdown();
    await this.running;
    this.running = undefined;
  }

  async stop(): Promise<void> {
    await this.stopWorkers();
    await this.app.close();
    await this.receiver.close();
    await this.connection.close();
    await this.nativeConnection.close();
  }

  /** A task type unique to this test. */
  taskType(name = 'test'): string {
    return `${name}.${randomUUID().slice(0, 8)}`;
  }

  async create(body: Record<string, unknown>): Promise<{ status: number; task: Task; raw: unknown }> {
    const response = await this.app.inject({ method: 'POST', url: '/api/v1/tasks', payload: body });
    return { status: response.statusCode, task: response.json() as Task, raw: response.json() };
  }

  async get(taskId: string): Promise<{ status: number; body: Task & { error?: { code: string } } }> {
    const response = await this.app.inject({
      method: 'GET',
      url: `/api/v1/tasks/${encodeURIComponent(taskId)}`,
    });
    return { status: response.statusCode, body: response.json() };
  }

  async post(url: string, payload?: unknown): Promise<{ status: number; body: any }> {
    const response = await this.app.inject({
      method: 'POST',
      url,
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
    return { status: response.statusCode, body: response.json() };
  }
}
