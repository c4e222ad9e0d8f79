/**
 * Everything one integration test file needs against the real dev server: a task queue of its own,
 * the workers (in this process), the API (driven with inject) and a callback receiver.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection, type DataConverter } from '@temporalio/client';
import { NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { pino } from 'pino';
import { inject } from 'vitest';
import { buildServer } from './server.js';
import { ApiMetrics, SCHEDULE_TALLY_MAX, taskCountsReader } from '../../src/api/metrics.js';
import type { Task } from '../../src/contract/tasks.js';
import { ScheduleService } from '../../src/schedules/service.js';
import { TaskService } from '../../src/tasks/service.js';
import { KeyStore } from '../../src/auth/key-store.js';
import { hashKey, mintKey, type KeyEntry, type KeysFile } from '../../src/auth/keys.js';
import { loadConfig, type Config } from '../../src/config/environment.js';
import { Policies, type PolicyFile } from '../../src/task-types/policies.js';
import { WorkerMetrics } from '../../src/worker/metrics.js';
import { callbackDepsFromConfig, createTaskWorkers, runWorkers } from '../../src/worker/workers.js';
import { BrokerPool } from '../../src/activities/brokers/pool.js';
import type { Resolver } from '../../src/security/callback-guard.js';
import { loadPayloadKeyring } from '../../src/security/payload-codec.js';
import { deadlineBoundRetries } from '../../src/temporal/connection.js';
import { createDataConverter } from '../../src/temporal/data-converter.js';
import { CallbackReceiver } from './receiver.js';
import { TEST_ENV } from './test-env.js';

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

/** A key a test wants: everything of a keys file entry but its id and hash, which are minted. */
export type TestKey = Omit<KeyEntry, 'id' | 'hash'>;

export interface HarnessOptions {
  policies?: PolicyFile;
  env?: Record<string, string>;
  /** Stands in for DNS in the API's create check and the worker's connection pool. */
  resolve?: Resolver;
  /** Server and workflow bundle outside vitest (the history recorder); the test run's by default. */
  server?: { address: string; workflowBundlePath: string };
  /** API keys by a name of the test's choosing: written to a keys file the API reloads; auth on. */
  keys?: Record<string, TestKey>;
  /** Keep the API's JSON log lines in `logLines` (audit lines among them). */
  captureLogs?: boolean;
  /** Start the workers (they need the namespace to exist). @defaultValue true */
  workers?: boolean;
}

export interface Minted {
  /** The full key, as a client sends it. */
  key: string;
  keyId: string;
  entry: KeyEntry;
}

/** Mints keys for a keys file; returns the file and the keys by name. */
export function mintKeys(keys: Record<string, TestKey>): { file: KeysFile; minted: Record<string, Minted> } {
  const minted: Record<string, Minted> = {};
  for (const [name, spec] of Object.entries(keys)) {
    const { keyId, key } = mintKey();
    minted[name] = { key, keyId, entry: { id: keyId, hash: hashKey(key), ...spec } };
  }
  return { file: { keys: Object.values(minted).map((m) => m.entry) }, minted };
}

/** Writes a keys file atomically, as the keys CLI does, so a watcher never reads half of it. */
export function writeKeysFile(path: string, content: KeysFile | string): void {
  const temporary = `${path}.${randomUUID()}.tmp`;
  writeFileSync(temporary, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  renameSync(temporary, path);
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
  schedules!: ScheduleService;
  /** Keys by the names given in `HarnessOptions.keys`. */
  keys: Record<string, Minted> = {};
  keysFile: string | undefined;
  keyStore: KeyStore | undefined;
  /** JSON log lines of the API, when `captureLogs`. */
  readonly logLines: Record<string, unknown>[] = [];
  /** The raw log text, for checking that no secret was ever written. */
  logText = '';
  private connection!: Connection;
  private nativeConnection!: NativeConnection;
  private workflowBundlePath!: string;
  /** The workers running in this process now (one per queue; a test may stop one). */
  workers: Worker[] = [];
  private resolve: Resolver | undefined;
  /** Failure converter and, when the env configures keys, encryption: as the API and worker build it. */
  dataConverter!: DataConverter;
  private running: Promise<void> | undefined;
  /** The workers' broker connections (BROKERS_FILE), as the worker process holds them. */
  private brokerPool: BrokerPool | undefined;

  static async start(options: HarnessOptions = {}): Promise<Harness> {
    const harness = new Harness();
    await harness.init(options);
    return harness;
  }

  private async init(options: HarnessOptions): Promise<void> {
    quietRuntime();
    const address = options.server?.address ?? inject('temporalAddress');
    this.workflowBundlePath = options.server?.workflowBundlePath ?? inject('workflowBundlePath');
    if (options.keys) {
      const { file, minted } = mintKeys(options.keys);
      this.keys = minted;
      this.keysFile = join(mkdtempSync(join(tmpdir(), 'delayed-task-keys-')), 'api-keys.json');
      writeKeysFile(this.keysFile, file);
    }
    this.config = loadConfig({
      TEMPORAL_ADDRESS: address,
      TASK_QUEUE: this.taskQueue,
      LOG_LEVEL: options.captureLogs ? 'info' : 'silent',
      ...TEST_ENV,
      ...(this.keysFile ? { API_KEYS_FILE: this.keysFile } : {}),
      ...options.env,
    });
    this.resolve = options.resolve;
    this.dataConverter = createDataConverter(loadPayloadKeyring(this.config.encryption));
    const logger = pino(
      { level: this.config.logLevel },
      {
        write: (line: string) => {
          this.logText += line;
          this.logLines.push(JSON.parse(line) as Record<string, unknown>);
        },
      },
    );
    if (this.config.auth.keysFile) {
      this.keyStore = new KeyStore(this.config.auth.keysFile, logger);
      this.keyStore.watch(this.config.auth.keysWatchIntervalMs);
    }
    this.policies = new Policies(options.policies ?? {});
    this.receiver = await CallbackReceiver.start();
    this.connection = await Connection.connect({ address, interceptors: [deadlineBoundRetries()] });
    this.client = new Client({ connection: this.connection, dataConverter: this.dataConverter });
    this.nativeConnection = await NativeConnection.connect({ address });
    this.tasks = new TaskService({
      connection: this.connection,
      config: this.config,
      policies: this.policies,
      dataConverter: this.dataConverter,
      ...(this.resolve ? { resolve: this.resolve } : {}),
    });
    this.schedules = new ScheduleService(
      {
        connection: this.connection,
        config: this.config,
        policies: this.policies,
        dataConverter: this.dataConverter,
        ...(this.resolve ? { resolve: this.resolve } : {}),
      },
      this.tasks,
    );
    const metrics = new ApiMetrics({
      readCounts: taskCountsReader(this.tasks.visibility, this.config.limits.maxScheduleAheadSeconds * 1000),
      cacheMs: 0,
      readScheduleTally: () => this.schedules.tally(SCHEDULE_TALLY_MAX),
      scheduleCacheMs: 1000,
    });
    const codec = this.dataConverter.payloadCodecs?.[0];
    this.app = await buildServer({
      config: this.config,
      tasks: this.tasks,
      schedules: this.schedules,
      metrics,
      keys: this.keyStore,
      logger: options.captureLogs ? logger : false,
      ...(codec ? { codec } : {}),
    });
    if (options.workers ?? true) await this.startWorkers();
  }

  /** Starts the workers (again, after stopWorkers), with another data converter if given (key rotation). */
  async startWorkers(dataConverter: DataConverter = this.dataConverter): Promise<void> {
    this.brokerPool = new BrokerPool(this.config.brokers);
    this.workers = await createTaskWorkers({
      brokerPool: this.brokerPool,
      connection: this.nativeConnection,
      namespace: this.config.temporal.namespace,
      taskQueue: this.taskQueue,
      policies: this.policies,
      metrics: this.workerMetrics,
      workflowBundle: { codePath: this.workflowBundlePath },
      dataConverter,
      callbackDeps: {
        ...callbackDepsFromConfig(this.config),
        ...(this.resolve ? { resolve: this.resolve } : {}),
      },
    });
    this.running = runWorkers(this.workers);
  }

  /** Stops every worker and waits until they have drained. */
  async stopWorkers(): Promise<void> {
    for (const worker of this.workers) if (worker.getState() === 'RUNNING') worker.shutdown();
    await this.running;
    this.running = undefined;
    await this.brokerPool?.close();
  }

  async stop(): Promise<void> {
    await this.stopWorkers();
    this.keyStore?.close();
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

  /** Any request, optionally with an API key (`key`) or other headers. */
  async call(
    method: InjectOptions['method'],
    url: string,
    options: {
      key?: string;
      payload?: unknown;
      headers?: Record<string, string>;
      remoteAddress?: string;
    } = {},
  ): Promise<{ status: number; body: any; headers: Record<string, unknown> }> {
    const response = await this.app.inject({
      method,
      url,
      headers: { ...(options.key ? { authorization: `Bearer ${options.key}` } : {}), ...options.headers },
      ...(options.payload === undefined ? {} : { payload: options.payload as object }),
      ...(options.remoteAddress ? { remoteAddress: options.remoteAddress } : {}),
    });
    return { status: response.statusCode, body: response.json(), headers: response.headers };
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
