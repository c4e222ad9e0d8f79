/**
 * Our service as users deploy it: a Temporal server (the dev server on SQLite, or with `--server
 * postgres` Temporal Server on PostgreSQL), the worker process and optionally API processes, all from
 * the compiled dist/, each on its own loopback ports; with brokers, a BROKERS_FILE declaring them.
 */
import { join } from 'node:path';
import { Child } from '../infra/child.js';
import { brokersEnv, type BrokerServer, type LocalBroker } from '../infra/local-brokers.js';
import type { ProcessRef } from '../infra/memory.js';
import { freePort } from '../infra/ports.js';
import { TemporalPostgres } from '../infra/temporal-postgres.js';
import { TemporalDevServer, type TemporalServer } from '../infra/temporal-server.js';
import { waitUntil } from '../infra/wait.js';
import { mintWebhookSecret } from '../../src/security/webhook-signature.js';
import type { SystemEnv } from './system.js';

export class OursStack {
  private constructor(
    readonly server: TemporalServer,
    readonly taskQueue: string,
    readonly worker: Child,
    readonly apis: readonly Child[],
    readonly apiUrls: readonly string[],
    /** `--encryption on`: the payload key, for the direct client. */
    readonly encryptionKey: string | undefined,
    /** `--api-env`: the direct client reads the API's settings with it (its limits, its guard). */
    readonly apiEnv: Readonly<Record<string, string>>,
    /** The brokers declared to the API and worker, each under its server's name. */
    private readonly brokers: readonly LocalBroker[],
  ) {}

  static async start(
    env: SystemEnv,
    name: string,
    apiProcesses: number,
    brokers: readonly LocalBroker[] = [],
  ): Promise<OursStack> {
    const server = await startServer(env, `${name}-temporal`);
    const taskQueue = `bench-${name}`;
    const common = {
      ...process.env,
      TEMPORAL_ADDRESS: server.address,
      TASK_QUEUE: taskQueue,
      LOG_LEVEL: 'warn',
      // The benchmark's receiver listens on loopback, which the SSRF guard refuses by default.
      CALLBACK_ALLOW_CIDRS: '127.0.0.0/8,::1/128',
      WEBHOOK_SECRET: mintWebhookSecret(),
      SHUTDOWN_NOT_READY_SECONDS: '0',
      ...encryptionEnv(env.encryptionKey),
      ...brokersEnv(brokers, env.runDir),
    };
    const workerPort = await freePort();
    const worker = Child.start({
      name: `${name}-worker`,
      command: process.execPath,
      args: [...env.workerNodeArgs, join(env.distDir, 'worker/main.js')],
      env: {
        ...common,
        WORKER_PORT: String(workerPort),
        WORKER_SDK_METRICS_PORT: String(await freePort()),
        ...env.workerEnv,
      },
      logPath: join(env.runDir, `${name}-worker.log`),
    });
    const apis: Child[] = [];
    const apiUrls: string[] = [];
    for (let i = 0; i < apiProcesses; i++) {
      const port = await freePort();
      apis.push(
        Child.start({
          name: `${name}-api-${i}`,
          command: process.execPath,
          args: [join(env.distDir, 'api/main.js')],
          env: { ...common, HOST: '127.0.0.1', PORT: String(port), ...env.apiEnv },
          logPath: join(env.runDir, `${name}-api-${i}.log`),
        }),
      );
      apiUrls.push(`http://127.0.0.1:${port}`);
    }
    const ready = async (child: Child, url: string) =>
      waitUntil(async () => (await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2000) })).ok, {
        timeoutMs: 90_000,
        intervalMs: 250,
        what: `${child.name} /readyz`,
        giveUp: () => (child.isRunning ? undefined : `${child.name} exited: ${child.tail()}`),
      });
    await Promise.all([
      ready(worker, `http://127.0.0.1:${workerPort}`),
      ...apis.map((api, i) => ready(api, apiUrls[i]!)),
    ]);
    return new OursStack(server, taskQueue, worker, apis, apiUrls, env.encryptionKey, env.apiEnv, brokers);
  }

  /** The declared broker of `server`. */
  broker(server: BrokerServer): LocalBroker {
    const broker = this.brokers.find((b) => b.server === server);
    if (!broker) throw new Error(`no ${server} broker was started for this stack`);
    return broker;
  }

  processes(): ProcessRef[] {
    return [
      ...this.apis.map((api, i): ProcessRef => ({
        role: this.apis.length > 1 ? `api${i}` : 'api',
        pid: api.pid,
        kind: 'service',
      })),
      { role: 'worker', pid: this.worker.pid, kind: 'service' },
      { role: 'temporal', pid: this.server.child.pid, kind: 'store' },
      ...(this.server instanceof TemporalPostgres
        ? [{ role: 'postgres', pid: this.server.postgres.pid, kind: 'store', tree: true } as const]
        : []),
    ];
  }

  async stop(): Promise<void> {
    await Promise.all(this.apis.map((api) => api.stop()));
    await this.worker.stop(30_000);
    await this.server.stop();
  }
}

/** Configuration keys that turn payload encryption on with `key`; none without a key. */
export function encryptionEnv(key: string | undefined): Record<string, string> {
  return key ? { PAYLOAD_ENCRYPTION_KEYS: `bench:${key}`, PAYLOAD_ENCRYPTION_CURRENT_KEY_ID: 'bench' } : {};
}

function startServer(env: SystemEnv, name: string): Promise<TemporalServer> {
  if (env.server === 'sqlite') {
    return TemporalDevServer.start(env.temporalCli, {
      name,
      dir: env.runDir,
      pragmas: env.pragmas,
      dynamicConfig: env.dynamicConfig,
    });
  }
  if (!env.temporalServerTools) throw new Error('--server postgres needs the Temporal server binaries');
  return TemporalPostgres.start({
    name,
    dir: env.runDir,
    tools: env.temporalServerTools,
    dynamicConfig: env.dynamicConfig,
    postgresSettings: env.postgresSettings,
  });
}
