/**
 * A Temporal Server on PostgreSQL of the benchmark's own, for `--server postgres`: a private
 * PostgreSQL cluster (Debian's package) in the run's directory and the official server binary
 * (scripts/temporal-server.sh, the same server version as the CLI's dev server), every service in one
 * process, every listener on 127.0.0.1. Where the dev server's single SQLite connection is the wall,
 * this shows how a pool of PostgreSQL connections moves it.
 */
import { execFile, execFileSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Connection, isGrpcServiceError } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';
import { stringify } from 'yaml';
import { DEV_SERVER_DYNAMIC_CONFIG, searchAttributeTypes } from '../../src/temporal/dev-server.js';
import { Child } from './child.js';
import { freePort } from './ports.js';
import {
  readPersistence,
  waitForNamespace,
  type PersistenceTotals,
  type TemporalServer,
} from './temporal-server.js';
import { waitUntil } from './wait.js';

const run = promisify(execFile);

/** History shards of the server: more than the dev server's one, so history work spreads over them. */
export const HISTORY_SHARDS = 4;
/** Connections each of the two stores may open (Temporal's default store and its visibility store). */
const MAX_CONNS = { default: 20, visibility: 10 } as const;
const DATABASES = ['temporal', 'temporal_visibility'] as const;
/** gRPC status codes the setup expects while the server comes up. */
const GRPC = { alreadyExists: 6 } as const;
/**
 * Dynamic config of the CLI's dev server that is not the project's: raised persistence rate limits
 * (temporal CLI 1.5.1, commands.server.go). Set here too, so that the two servers differ by their store.
 */
const DEV_SERVER_CLI_DEFAULTS: Readonly<Record<string, number>> = {
  'frontend.persistenceMaxQPS': 10_000,
  'history.persistenceMaxQPS': 45_000,
};

/** Directory of temporal-server and temporal-sql-tool, from the project's script (builds them once). */
export function temporalServerTools(root: string): string {
  return execFileSync(join(root, 'scripts/temporal-server.sh'), {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
}

/** Version of the Temporal server binary, e.g. `1.29.1`. */
export function temporalServerVersion(tools: string): string {
  const out = execFileSync(join(tools, 'temporal-server'), ['--version'], { encoding: 'utf8' });
  return /version (\S+)/.exec(out)?.[1] ?? out.trim();
}

/** Debian keeps each major version's programs off PATH, in /usr/lib/postgresql/<major>/bin. */
function installedBinDir(): string | undefined {
  const base = '/usr/lib/postgresql';
  let majors: string[];
  try {
    majors = readdirSync(base).filter((major) => existsSync(join(base, major, 'bin/postgres')));
  } catch {
    return undefined;
  }
  const newest = majors.sort((a, b) => Number(b) - Number(a))[0];
  return newest === undefined ? undefined : join(base, newest, 'bin');
}

/** Directory of PostgreSQL's programs, installing Debian's package first when missing and allowed. */
function postgresBin(): string {
  if (!installedBinDir() && process.getuid?.() === 0) {
    try {
      execFileSync(
        'sh',
        ['-c', 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql'],
        { stdio: ['ignore', 'ignore', 'inherit'] },
      );
    } catch {
      // Reported below.
    }
  }
  const bin = installedBinDir();
  if (!bin) throw new Error('PostgreSQL not found: apt-get update && apt-get install -y postgresql');
  return bin;
}

/** Version of Debian's PostgreSQL (installed first when missing), e.g. `15.18`. */
export function postgresVersion(): string {
  const out = execFileSync(join(postgresBin(), 'postgres'), ['--version'], { encoding: 'utf8' });
  return /\(PostgreSQL\) (\S+)/.exec(out)?.[1] ?? out.trim();
}

/**
 * PostgreSQL refuses to run as root: as root, its programs run as the `postgres` user (setpriv execs,
 * so the pid is PostgreSQL's own); as anyone else, as that user.
 */
function asPostgresUser(command: string, args: readonly string[]): [string, string[]] {
  if (process.getuid?.() !== 0) return [command, [...args]];
  return ['setpriv', ['--reuid=postgres', '--regid=postgres', '--init-groups', '--', command, ...args]];
}

function postgresUser(): { uid: number; gid: number } {
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

export interface PostgresServerOptions {
  name: string;
  /** The run's directory: the cluster, the server's config and the logs go under it. */
  dir: string;
  /** Directory of temporal-server and temporal-sql-tool (temporalServerTools). */
  tools: string;
  /** Extra `KEY=JSON` dynamic config, after the project's own. */
  dynamicConfig: readonly string[];
  /** Extra `name=value` PostgreSQL settings (`postgres -c`), e.g. `synchronous_commit=off`. */
  postgresSettings: readonly string[];
}

let serversStarted = 0;

export class TemporalPostgres implements TemporalServer {
  private constructor(
    readonly address: string,
    readonly child: Child,
    readonly postgres: Child,
    private readonly postgresPort: number,
    private readonly home: string,
    private readonly metricsUrl: string,
  ) {}

  static async start(options: PostgresServerOptions): Promise<TemporalPostgres> {
    const bin = postgresBin();
    // A new cluster each time: a restarted stack must not pick up the backlog of the one it replaces.
    const home = join(options.dir, `${options.name}-${++serversStarted}`);
    const pgdata = join(home, 'pgdata');
    mkdirSync(pgdata, { recursive: true });
    if (process.getuid?.() === 0) {
      // The postgres user must reach its data directory through the run's directory (mkdtemp makes it
      // 0700): search permission only, no listing.
      for (const dir of [options.dir, home]) chmodSync(dir, statSync(dir).mode | 0o011);
      const { uid, gid } = postgresUser();
      chownSync(pgdata, uid, gid);
    }
    await run(
      ...asPostgresUser(join(bin, 'initdb'), [
        '--pgdata',
        pgdata,
        '--username',
        'temporal',
        '--auth',
        'trust',
        '--encoding',
        'UTF8',
        '--locale',
        'C',
        '--no-sync',
      ]),
    );

    const postgresPort = await freePort();
    const [command, args] = asPostgresUser(join(bin, 'postgres'), [
      '-D',
      pgdata,
      '-p',
      String(postgresPort),
      '-c',
      'listen_addresses=127.0.0.1',
      // TCP on loopback only, no Unix socket.
      '-c',
      'unix_socket_directories=',
      ...options.postgresSettings.flatMap((setting) => ['-c', setting]),
    ]);
    const postgres = Child.start({
      name: `${options.name}-postgres`,
      command,
      args,
      logPath: join(options.dir, `${options.name}-postgres.log`),
    });
    try {
      const isReady = ['-h', '127.0.0.1', '-p', String(postgresPort), '-U', 'temporal'];
      await waitUntil(
        async () => {
          await run(join(bin, 'pg_isready'), isReady);
          return true;
        },
        {
          timeoutMs: 30_000,
          intervalMs: 200,
          what: `PostgreSQL on port ${postgresPort}`,
          giveUp: () => (postgres.isRunning ? undefined : `it exited: ${postgres.tail()}`),
        },
      );
      await createSchemas(options.tools, postgresPort);
      return await TemporalPostgres.startServer(options, home, postgres, postgresPort);
    } catch (err) {
      await postgres.stop();
      rmSync(home, { recursive: true, force: true });
      throw err;
    }
  }

  private static async startServer(
    options: PostgresServerOptions,
    home: string,
    postgres: Child,
    postgresPort: number,
  ): Promise<TemporalPostgres> {
    const ports: Ports = { frontendHttp: await freePort(), metrics: await freePort(), services: {} };
    for (const service of SERVICES)
      ports.services[service] = { grpc: await freeLowPort(), membership: await freeLowPort() };
    const configDir = join(home, 'config');
    mkdirSync(configDir, { recursive: true });
    const dynamicConfigPath = join(configDir, 'dynamic.yaml');
    writeFileSync(dynamicConfigPath, stringify(dynamicConfigFile(options.dynamicConfig)));
    writeFileSync(
      join(configDir, 'bench.yaml'),
      stringify(serverConfig(ports, postgresPort, dynamicConfigPath), { lineWidth: 0 }),
    );
    const child = Child.start({
      name: options.name,
      command: join(options.tools, 'temporal-server'),
      args: ['--root', home, '--config', 'config', '--env', 'bench', '--allow-no-auth', 'start'],
      logPath: join(options.dir, `${options.name}.log`),
    });
    const server = new TemporalPostgres(
      `127.0.0.1:${ports.services.frontend!.grpc}`,
      child,
      postgres,
      postgresPort,
      home,
      `http://127.0.0.1:${ports.metrics}/metrics`,
    );
    try {
      await registerNamespace(server.address, child);
      await waitForNamespace(server.address, child, 'Temporal Server on PostgreSQL');
    } catch (err) {
      await server.stop();
      throw err;
    }
    return server;
  }

  /** Size of Temporal's two databases. */
  async dbBytes(): Promise<number> {
    const list = DATABASES.map((db) => `'${db}'`).join(', ');
    const { stdout } = await run(join(postgresBin(), 'psql'), [
      ...['-h', '127.0.0.1', '-p', String(this.postgresPort), '-U', 'temporal', '-d', 'postgres'],
      ...['-XAtc', `SELECT sum(pg_database_size(datname)) FROM pg_database WHERE datname IN (${list})`],
    ]);
    return Number(stdout.trim());
  }

  persistence(): Promise<PersistenceTotals> {
    return readPersistence(this.metricsUrl);
  }

  /** Stops the server, then PostgreSQL, and deletes the cluster. */
  async stop(): Promise<void> {
    await this.child.stop();
    await this.postgres.stop();
    rmSync(this.home, { recursive: true, force: true });
  }
}

/** Creates Temporal's two databases and brings their schemas to the binary's version. */
async function createSchemas(tools: string, port: number): Promise<void> {
  for (const [db, schema] of [
    ['temporal', 'postgresql/v12/temporal'],
    ['temporal_visibility', 'postgresql/v12/visibility'],
  ] as const) {
    const tool = (...args: string[]) =>
      run(join(tools, 'temporal-sql-tool'), [
        ...['--plugin', 'postgres12', '--ep', '127.0.0.1', '--port', String(port)],
        ...['--user', 'temporal', '--db', db],
        ...args,
      ]);
    await tool('create-database');
    await tool('setup-schema', '--version', '0.0');
    await tool('update-schema', '--schema-name', schema);
  }
}

/** The file-based dynamic config: the project's (as the dev server gets it), then the run's extras. */
function dynamicConfigFile(
  extra: readonly string[],
): Record<string, { value: unknown; constraints: object }[]> {
  const values: Record<string, unknown> = { ...DEV_SERVER_CLI_DEFAULTS, ...DEV_SERVER_DYNAMIC_CONFIG };
  for (const pair of extra) {
    const at = pair.indexOf('=');
    if (at < 1) throw new Error(`expected KEY=JSON dynamic config, got ${pair}`);
    values[pair.slice(0, at)] = JSON.parse(pair.slice(at + 1)) as unknown;
  }
  return Object.fromEntries(
    Object.entries(values).map(([key, value]) => [key, [{ value, constraints: {} }]]),
  );
}

/**
 * A free loopback port below 32768. Temporal's SQL schema keeps the services' ports in a `smallint`
 * (cluster_membership.rpc_port), so the ephemeral ports freePort() gets from the OS do not fit.
 */
async function freeLowPort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_768);
    const server = createServer();
    const free = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (free) {
      await new Promise((resolve) => server.close(resolve));
      return port;
    }
  }
}

/** The services of a cluster, all in the one process. */
const SERVICES = ['frontend', 'history', 'matching', 'worker'] as const;

interface Ports {
  frontendHttp: number;
  metrics: number;
  /** gRPC and membership (ringpop) ports of each service. */
  services: Partial<Record<(typeof SERVICES)[number], { grpc: number; membership: number }>>;
}

/** Server config (Temporal's config/development-postgres12.yaml, on loopback ports of our choosing). */
function serverConfig(ports: Ports, postgresPort: number, dynamicConfigPath: string): object {
  const store = (databaseName: string, maxConns: number) => ({
    sql: {
      pluginName: 'postgres12',
      databaseName,
      connectAddr: `127.0.0.1:${postgresPort}`,
      connectProtocol: 'tcp',
      user: 'temporal',
      password: '',
      maxConns,
      maxIdleConns: maxConns,
      maxConnLifetime: '1h',
    },
  });
  const frontend = `127.0.0.1:${ports.services.frontend!.grpc}`;
  return {
    log: { stdout: true, level: 'error' },
    persistence: {
      defaultStore: 'postgres-default',
      visibilityStore: 'postgres-visibility',
      numHistoryShards: HISTORY_SHARDS,
      datastores: {
        'postgres-default': store('temporal', MAX_CONNS.default),
        'postgres-visibility': store('temporal_visibility', MAX_CONNS.visibility),
      },
    },
    global: {
      membership: { maxJoinDuration: '30s', broadcastAddress: '127.0.0.1' },
      metrics: {
        prometheus: {
          framework: 'tally',
          timerType: 'histogram',
          listenAddress: `127.0.0.1:${ports.metrics}`,
          handlerPath: '/metrics',
        },
      },
    },
    services: Object.fromEntries(
      Object.entries(ports.services).map(([service, { grpc, membership }]) => [
        service,
        {
          rpc: {
            grpcPort: grpc,
            membershipPort: membership,
            bindOnIP: '127.0.0.1',
            ...(service === 'frontend' ? { httpPort: ports.frontendHttp } : {}),
          },
        },
      ]),
    ),
    clusterMetadata: {
      enableGlobalNamespace: false,
      failoverVersionIncrement: 10,
      masterClusterName: 'active',
      currentClusterName: 'active',
      clusterInformation: {
        active: {
          enabled: true,
          initialFailoverVersion: 1,
          rpcName: 'frontend',
          rpcAddress: frontend,
          httpAddress: `127.0.0.1:${ports.frontendHttp}`,
        },
      },
    },
    dcRedirectionPolicy: { policy: 'noop' },
    archival: { history: { state: 'disabled' }, visibility: { state: 'disabled' } },
    namespaceDefaults: { archival: { history: { state: 'disabled' }, visibility: { state: 'disabled' } } },
    dynamicConfigClient: { filepath: dynamicConfigPath, pollInterval: '10s' },
  };
}

/** Creates the `default` namespace and the project's search attributes, as the dev server does itself. */
async function registerNamespace(address: string, child: Child): Promise<void> {
  const searchAttributes = searchAttributeTypes();
  const alreadyDone = (err: unknown) => isGrpcServiceError(err) && err.code === GRPC.alreadyExists;
  const steps = [
    {
      what: 'namespace default',
      call: (connection: Connection) =>
        connection.workflowService.registerNamespace({
          namespace: 'default',
          workflowExecutionRetentionPeriod: msToTs('1 day'),
        }),
    },
    {
      // Refused (namespace not found) until the frontend's namespace cache has the new namespace.
      what: 'search attributes',
      call: (connection: Connection) =>
        connection.operatorService.addSearchAttributes({ namespace: 'default', searchAttributes }),
    },
  ];
  for (const step of steps) {
    await waitUntil(
      async () => {
        const connection = await Connection.connect({ address, connectTimeout: 1000 });
        try {
          await step.call(connection).catch((err: unknown) => {
            if (!alreadyDone(err)) throw err;
          });
          return true;
        } finally {
          await connection.close();
        }
      },
      {
        timeoutMs: 90_000,
        intervalMs: 500,
        what: `${step.what} on ${address}`,
        giveUp: () => (child.isRunning ? undefined : `it exited: ${child.tail()}`),
      },
    );
  }
}
