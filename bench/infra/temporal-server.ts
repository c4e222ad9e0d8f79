/**
 * The benchmark's Temporal servers, loopback only, with the project's search attributes and dynamic
 * config. Two kinds behind one interface: the dev server of the `temporal` CLI on a SQLite file (the
 * default, this file) and a Temporal Server on PostgreSQL (temporal-postgres.ts).
 */
import { execFileSync } from 'node:child_process';
import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { ALL_SEARCH_ATTRIBUTES } from '../../src/shared/constants.js';
import { dynamicConfigArgs, searchAttributeArgs, sqlitePragmaArgs } from '../../src/temporal/dev-server.js';
import { Child } from './child.js';
import { freePort } from './ports.js';
import { waitUntil } from './wait.js';

/** Which server the stack runs on: `--server` of bench/run.ts. */
export const SERVER_KINDS = ['sqlite', 'postgres'] as const;
export type ServerKind = (typeof SERVER_KINDS)[number];

/** What the benchmark uses of a Temporal server, whichever store is behind it. */
export interface TemporalServer {
  /** Frontend gRPC, `127.0.0.1:port`. */
  readonly address: string;
  /** The server process: its CPU and memory are the `temporal` role. */
  readonly child: Child;
  /** Bytes the store holds now. */
  dbBytes(): Promise<number>;
  /** The server's persistence calls so far. */
  persistence(): Promise<PersistenceTotals>;
  /** Stops the server (and its store) and deletes its data. */
  stop(): Promise<void>;
}

export interface PersistenceTotals {
  requests: number;
  seconds: number;
  byOperation: Record<string, { requests: number; seconds: number }>;
  /** The engine's work in the `default` namespace, counted by the server itself. */
  engine: EngineCounts;
}

/**
 * What the engine does for tasks, from the server's own metrics (namespace `default`; visibility
 * writes carry no namespace label, and the server's own few system workflows count there too).
 */
export interface EngineCounts {
  /** Mutable-state transactions of the history service, each appending its events: CreateWorkflowExecution, UpdateWorkflowExecution, ConflictResolveWorkflowExecution. */
  historyWrites: number;
  /** Visibility rows written: RecordWorkflowExecutionStarted, UpsertWorkflowExecution, RecordWorkflowExecutionClosed. */
  visibilityWrites: number;
  /** Tasks the history service hands to matching for a worker: AddWorkflowTask + AddActivityTask. */
  matchingDispatches: number;
  /** Workflow tasks a worker completed (or failed): RespondWorkflowTaskCompleted/Failed at the history service. */
  workflowTasks: number;
  /** Calls into the frontend other than long polls: starts, signals, queries, task completions, ... */
  frontendCalls: number;
}

/** Path of the `temporal` CLI, from the project's script (builds it once when missing). */
export function temporalCli(root: string): string {
  return execFileSync(join(root, 'scripts/temporal-cli.sh'), {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
}

export const ENGINE_COUNTS: readonly (keyof EngineCounts)[] = [
  'historyWrites',
  'visibilityWrites',
  'matchingDispatches',
  'workflowTasks',
  'frontendCalls',
];

const HISTORY_WRITES = [
  'CreateWorkflowExecution',
  'UpdateWorkflowExecution',
  'ConflictResolveWorkflowExecution',
];
const VISIBILITY_WRITES = [
  'RecordWorkflowExecutionStarted',
  'UpsertWorkflowExecution',
  'RecordWorkflowExecutionClosed',
];

/**
 * Persistence calls of a server so far, from its Prometheus endpoint: count and summed latency (s), over
 * every operation, and the engine counts above. Seconds of persistence per second of wall time show how
 * busy the store is; with the dev server's single SQLite connection, above 1 means calls queue for it.
 */
export async function readPersistence(metricsUrl: string): Promise<PersistenceTotals> {
  const text = await (await fetch(metricsUrl, { signal: AbortSignal.timeout(5000) })).text();
  const totals: PersistenceTotals = {
    requests: 0,
    seconds: 0,
    byOperation: {},
    engine: {
      historyWrites: 0,
      visibilityWrites: 0,
      matchingDispatches: 0,
      workflowTasks: 0,
      frontendCalls: 0,
    },
  };
  const label = (labels: string, name: string) => new RegExp(`${name}="([^"]*)"`).exec(labels)?.[1];
  for (const [, metric, labels, raw] of text.matchAll(/^(\w+)\{([^}]*)\} (\S+)$/gm)) {
    const value = Number(raw);
    const operation = label(labels!, 'operation') ?? '?';
    const namespace = label(labels!, 'namespace');
    const service = label(labels!, 'service_name');
    if (metric === 'persistence_requests' || metric === 'persistence_latency_sum') {
      const entry = (totals.byOperation[operation] ??= { requests: 0, seconds: 0 });
      if (metric === 'persistence_requests') {
        totals.requests += value;
        entry.requests += value;
        if (namespace === 'default' && HISTORY_WRITES.includes(operation))
          totals.engine.historyWrites += value;
      } else {
        totals.seconds += value;
        entry.seconds += value;
      }
    } else if (metric === 'visibility_persistence_requests' && VISIBILITY_WRITES.includes(operation)) {
      totals.engine.visibilityWrites += value;
    } else if (metric === 'service_requests' && namespace === 'default') {
      if (service === 'matching' && (operation === 'AddWorkflowTask' || operation === 'AddActivityTask'))
        totals.engine.matchingDispatches += value;
      else if (
        service === 'history' &&
        (operation === 'RespondWorkflowTaskCompleted' || operation === 'RespondWorkflowTaskFailed')
      )
        totals.engine.workflowTasks += value;
      else if (service === 'frontend' && !operation.startsWith('Poll')) totals.engine.frontendCalls += value;
    }
  }
  return totals;
}

/** Waits until the `default` namespace answers and the project's search attributes are registered. */
export async function waitForNamespace(address: string, child: Child, what: string): Promise<void> {
  await waitUntil(
    async () => {
      const connection = await Connection.connect({ address, connectTimeout: 1000 });
      try {
        await connection.workflowService.describeNamespace({ namespace: 'default' });
        const { customAttributes } = await connection.operatorService.listSearchAttributes({
          namespace: 'default',
        });
        return ALL_SEARCH_ATTRIBUTES.every((key) => customAttributes?.[key.name] !== undefined);
      } finally {
        await connection.close();
      }
    },
    {
      timeoutMs: 60_000,
      intervalMs: 300,
      what: `${what} ${address}`,
      giveUp: () => (child.isRunning ? undefined : `it exited: ${child.tail()}`),
    },
  );
}

export interface DevServerOptions {
  name: string;
  /** Directory of the SQLite file and the log. */
  dir: string;
  /** `PRAGMA=VALUE` for `--sqlite-pragma`. */
  pragmas: readonly string[];
  /** Extra `KEY=JSON` for `--dynamic-config-value`, after the project's own. */
  dynamicConfig: readonly string[];
}

let devServersStarted = 0;

/** `temporal server start-dev`: every service in one process, a SQLite file with one connection. */
export class TemporalDevServer implements TemporalServer {
  private constructor(
    readonly address: string,
    readonly dbPath: string,
    readonly child: Child,
    /** The server's Prometheus endpoint. */
    readonly metricsUrl: string,
  ) {}

  static async start(cli: string, options: DevServerOptions): Promise<TemporalDevServer> {
    const port = await freePort();
    const metricsPort = await freePort();
    // A new file each time: a restarted stack must not pick up the backlog of the one it replaces.
    const dbPath = join(options.dir, `${options.name}-${++devServersStarted}.db`);
    const args = [
      'server',
      'start-dev',
      '--ip',
      '127.0.0.1',
      '--port',
      String(port),
      '--headless',
      '--db-filename',
      dbPath,
      '--log-level',
      'error',
      '--metrics-port',
      String(metricsPort),
      ...searchAttributeArgs(),
      ...dynamicConfigArgs(),
      ...sqlitePragmaArgs(options.pragmas),
      ...options.dynamicConfig.flatMap((value) => ['--dynamic-config-value', value]),
    ];
    const child = Child.start({
      name: options.name,
      command: cli,
      args,
      logPath: join(options.dir, `${options.name}.log`),
    });
    const server = new TemporalDevServer(
      `127.0.0.1:${port}`,
      dbPath,
      child,
      `http://127.0.0.1:${metricsPort}/metrics`,
    );
    await waitForNamespace(server.address, child, 'Temporal dev server');
    return server;
  }

  /** Size of the SQLite database with its journal or WAL files. */
  async dbBytes(): Promise<number> {
    return ['', '-wal', '-shm', '-journal']
      .map((suffix) => {
        try {
          return statSync(this.dbPath + suffix).size;
        } catch {
          return 0;
        }
      })
      .reduce((a, b) => a + b, 0);
  }

  persistence(): Promise<PersistenceTotals> {
    return readPersistence(this.metricsUrl);
  }

  /** Stops the server and deletes its database. */
  async stop(): Promise<void> {
    await this.child.stop();
    for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(this.dbPath + suffix, { force: true });
  }
}
