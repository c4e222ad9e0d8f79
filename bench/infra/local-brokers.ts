/**
 * The brokers of the broker systems (ours-redis, ours-rabbitmq, ours-kafka): real servers on loopback
 * started and stopped with scripts/local-server.sh as instances of the benchmark's own (`redis@bench`:
 * own data directory and port, so a test's server of the same kind is never reused or stopped), and
 * the BROKERS_FILE that declares them to our API and worker.
 */
import { execFile, execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const BROKER_SERVERS = ['redis', 'rabbitmq', 'kafka'] as const;
export type BrokerServer = (typeof BROKER_SERVERS)[number];

/** The declared broker's kind (src/config/brokers.ts) of each server. */
const DECLARED_KIND: Record<BrokerServer, string> = {
  redis: 'redis-streams',
  rabbitmq: 'rabbitmq',
  kafka: 'kafka',
};

/** Destinations the benchmark names (each consumer start makes its own `bench.<id>`). */
export const BENCH_DESTINATIONS = 'bench.*';
/** The environment variable our processes read RabbitMQ's password from (a declared URL carries none). */
const RABBITMQ_PASSWORD_ENV = 'BENCH_RABBITMQ_PASSWORD';

/** Servers started by this process, stopped on exit when the run could not stop them itself. */
const started = new Set<LocalBroker>();

export class LocalBroker {
  private constructor(
    readonly server: BrokerServer,
    /** Its URL as local-server.sh prints it (RabbitMQ's with its guest credentials). */
    readonly url: string,
    /** The server's process (RabbitMQ: the Erlang VM; Kafka: the JVM), for its CPU and memory. */
    readonly pid: number,
    private readonly script: string,
  ) {}

  static async start(root: string, server: BrokerServer): Promise<LocalBroker> {
    const script = join(root, 'scripts/local-server.sh');
    const { stdout } = await run('bash', [script, instance(server)], { timeout: 600_000 });
    const pid = Number(readFileSync(join(root, '.data/servers', instance(server), 'pid'), 'utf8').trim());
    const broker = new LocalBroker(server, stdout.trim(), pid, script);
    started.add(broker);
    return broker;
  }

  async stop(): Promise<void> {
    started.delete(this);
    await run('bash', [this.script, 'stop', instance(this.server)], { timeout: 60_000 });
  }

  /** Stops every server this process started. */
  static async stopAll(): Promise<void> {
    await Promise.all([...started].map((broker) => broker.stop()));
  }

  /** The same, blocking: for a process about to exit. */
  static stopAllSync(): void {
    for (const broker of started) {
      started.delete(broker);
      try {
        execFileSync('bash', [broker.script, 'stop', instance(broker.server)], {
          stdio: 'ignore',
          timeout: 60_000,
        });
      } catch {
        // Exiting anyway; `scripts/local-server.sh stop <server>@bench` stops it by hand.
      }
    }
  }
}

function instance(server: BrokerServer): string {
  return `${server}@bench`;
}

/**
 * The declaration in BROKERS_FILE of the broker `server` at `url` (as local-server.sh prints it): the
 * URL without credentials (a declared URL may carry none; RabbitMQ's guest password comes from the
 * environment), the benchmark's destinations for the default owner.
 */
export function brokerDeclaration(server: BrokerServer, url: string): Record<string, unknown> {
  const bare = new URL(url);
  const credentials =
    bare.username === ''
      ? {}
      : { username: decodeURIComponent(bare.username), passwordEnv: RABBITMQ_PASSWORD_ENV };
  bare.username = '';
  bare.password = '';
  return {
    kind: DECLARED_KIND[server],
    url: bare.toString().replace(/\/$/, ''),
    ...credentials,
    owners: { default: [BENCH_DESTINATIONS] },
  };
}

/**
 * Writes BROKERS_FILE into `dir`, each broker declared under its server's name (`redis`, `rabbitmq`,
 * `kafka`) for the default owner; returns the environment of our processes that reads it.
 */
export function brokersEnv(brokers: readonly LocalBroker[], dir: string): Record<string, string> {
  if (brokers.length === 0) return {};
  const path = join(dir, 'brokers.json');
  const declared = Object.fromEntries(
    brokers.map((broker) => [broker.server, brokerDeclaration(broker.server, broker.url)]),
  );
  writeFileSync(path, `${JSON.stringify({ brokers: declared }, null, 2)}\n`);
  const rabbit = brokers.find((broker) => broker.server === 'rabbitmq');
  return {
    BROKERS_FILE: path,
    ...(rabbit ? { [RABBITMQ_PASSWORD_ENV]: decodeURIComponent(new URL(rabbit.url).password) } : {}),
  };
}

/** Versions for the report: Debian's packages of Redis and RabbitMQ, the Kafka jars local-server.sh runs. */
export function brokerVersions(root: string, servers: readonly BrokerServer[]): string {
  // Debian's version without its epoch and revision: `5:7.0.15-1~deb12u10` is 7.0.15.
  const debian = (pkg: string) => {
    try {
      const version = execFileSync('dpkg-query', ['-W', '-f', '${Version}', pkg], { encoding: 'utf8' });
      return /^(?:\d+:)?([^-~+]+)/.exec(version.trim())?.[1] ?? 'unknown';
    } catch {
      return 'unknown';
    }
  };
  const kafka = /^KAFKA_VERSION=(\S+)/m.exec(
    readFileSync(join(root, 'scripts/local-server.sh'), 'utf8'),
  )?.[1];
  const version: Record<BrokerServer, () => string> = {
    redis: () => `Redis ${debian('redis-server')}`,
    rabbitmq: () => `RabbitMQ ${debian('rabbitmq-server')}`,
    kafka: () => `Kafka ${kafka ?? 'unknown'} (KRaft, one node)`,
  };
  return servers.map((server) => version[server]()).join(', ');
}
