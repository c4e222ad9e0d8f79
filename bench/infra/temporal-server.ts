/**
 * A Temporal dev server of the benchmark's own: loopback only, SQLite file in the run's directory,
 * the project's search attributes and dynamic config, optional SQLite pragmas.
 */
import { execFileSync } from 'node:child_process';
import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { SEARCH_ATTRIBUTES } from '../../src/shared/constants.js';
import { dynamicConfigArgs, searchAttributeArgs, sqlitePragmaArgs } from '../../src/temporal/dev-server.js';
import { Child } from './child.js';
import { freePort } from './ports.js';
import { waitUntil } from './wait.js';

export interface TemporalServerOptions {
  name: string;
  /** Directory of the SQLite file and the log. */
  dir: string;
  /** `PRAGMA=VALUE` for `--sqlite-pragma`. */
  pragmas: readonly string[];
  /** Extra `KEY=JSON` for `--dynamic-config-value`, after the project's own. */
  dynamicConfig: readonly string[];
}

/** Path of the `temporal` CLI, from the project's script (builds it once when missing). */
export function temporalCli(root: string): string {
  return execFileSync(join(root, 'scripts/temporal-cli.sh'), {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
}

export interface PersistenceTotals {
  requests: number;
  seconds: number;
  byOperation: Record<string, { requests: number; seconds: number }>;
}

let serversStarted = 0;

export class TemporalServer {
  private constructor(
    readonly address: string,
    readonly dbPath: string,
    readonly child: Child,
    private readonly metricsUrl: string,
  ) {}

  static async start(cli: string, options: TemporalServerOptions): Promise<TemporalServer> {
    const port = await freePort();
    const metricsPort = await freePort();
    // A new file each time: a restarted stack must not pick up the backlog of the one it replaces.
    const dbPath = join(options.dir, `${options.name}-${++serversStarted}.db`);
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
    const server = new TemporalServer(
      `127.0.0.1:${port}`,
      dbPath,
      child,
      `http://127.0.0.1:${metricsPort}/metrics`,
    );
    await server.waitReady();
    return server;
  }

  /** Size of the SQLite database with its journal or WAL files. */
  dbBytes(): number {
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

  /**
   * The server's persistence calls so far: count and summed latency (s), over every operation. With the
   * dev server's single SQLite connection, seconds of persistence per second of wall time show how
   * busy that connection is.
   */
  async persistence(): Promise<PersistenceTotals> {
    const text = await (await fetch(this.metricsUrl, { signal: AbortSignal.timeout(5000) })).text();
    const totals: PersistenceTotals = { requests: 0, seconds: 0, byOperation: {} };
    for (const [, name, labels, value] of text.matchAll(
      /^persistence_(requests|latency_sum)\{([^}]*)\} (\S+)$/gm,
    )) {
      const operation = /operation="([^"]+)"/.exec(labels!)?.[1] ?? '?';
      const entry = (totals.byOperation[operation] ??= { requests: 0, seconds: 0 });
      if (name === 'requests') {
        totals.requests += Number(value);
        entry.requests += Number(value);
      } else {
        totals.seconds += Number(value);
        entry.seconds += Number(value);
      }
    }
    return totals;
  }

  /** Stops the server and deletes its database. */
  async stop(): Promise<void> {
    await this.child.stop();
    for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(this.dbPath + suffix, { force: true });
  }

  /** The namespace answers and the project's search attributes are registered. */
  private async waitReady(): Promise<void> {
    await waitUntil(
      async () => {
        const connection = await Connection.connect({ address: this.address, connectTimeout: 1000 });
        try {
          await connection.workflowService.describeNamespace({ namespace: 'default' });
          const { customAttributes } = await connection.operatorService.listSearchAttributes({
            namespace: 'default',
          });
          return Object.values(SEARCH_ATTRIBUTES).every((key) => customAttributes?.[key.name] !== undefined);
        } finally {
          await connection.close();
        }
      },
      {
        timeoutMs: 60_000,
        intervalMs: 300,
        what: `Temporal dev server ${this.address}`,
        giveUp: () => (this.child.isRunning ? undefined : `it exited: ${this.child.tail()}`),
      },
    );
  }
}
