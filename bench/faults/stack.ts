/**
 * The processes a fault scenario breaks: the Temporal dev server, worker processes and API processes,
 * each on fixed loopback ports and data across restarts, so a process killed with `kill -9` comes
 * back as the same member of the system.
 */
import { join } from 'node:path';
import { mintWebhookSecret } from '../../src/security/webhook-signature.js';
import { dynamicConfigArgs, searchAttributeArgs, sqlitePragmaArgs } from '../../src/temporal/dev-server.js';
import { Child } from '../infra/child.js';
import { readMemory } from '../infra/memory.js';
import { freePort } from '../infra/ports.js';
import { waitForNamespace } from '../infra/temporal-server.js';
import { waitUntil } from '../infra/wait.js';

export interface StackOptions {
  name: string;
  /** Scratch directory: databases and logs. */
  dir: string;
  cli: string;
  distDir: string;
  workers: number;
  apis: number;
  /** Extra environment of the worker and API processes. */
  env?: Record<string, string>;
}

/** A process of the stack that can crash, freeze and come back the same. */
abstract class Member {
  child: Child | undefined;
  restarts = 0;

  constructor(readonly name: string) {}

  protected abstract spawn(): Child;
  protected abstract ready(child: Child): Promise<void>;

  get pid(): number | undefined {
    return this.child?.isRunning ? this.child.pid : undefined;
  }

  rssBytes(): number | undefined {
    const pid = this.pid;
    return pid === undefined ? undefined : readMemory(pid)?.rssBytes;
  }

  async start(): Promise<void> {
    const child = this.spawn();
    this.child = child;
    await this.ready(child);
  }

  /** `kill -9`: no chance to finish anything. */
  async crash(): Promise<void> {
    const child = this.child;
    if (!child) return;
    child.signal('SIGKILL');
    await child.exited;
  }

  async restart(): Promise<void> {
    this.restarts++;
    await this.start();
  }

  /** SIGSTOP: the process holds its sockets open and answers nothing. */
  freeze(): void {
    this.child?.signal('SIGSTOP');
  }

  thaw(): void {
    this.child?.signal('SIGCONT');
  }

  async stop(graceMs = 10_000): Promise<void> {
    this.thaw();
    await this.child?.stop(graceMs);
  }
  /**
   * A rollout's step: SIGTERM as an orchestrator sends it, SIGKILL if the process is still running
   * `terminationGraceMs` later, then the same member started again and ready.
   */
  async roll(terminationGraceMs: number): Promise<Roll> {
    const child = this.child;
    if (!child) throw new Error(`${this.name} is not running`);
    const began = Date.now();
    await child.stop(terminationGraceMs);
    const exit = await child.exited;
    const stopMs = Date.now() - began;
    await this.restart();
    return { member: this.name, exit, stopMs, readyMs: Date.now() - began - stopMs };
  }
}

/** How one member's rollout step went. */
export interface Roll {
  member: string;
  /** Exit code, or the signal that ended it (SIGKILL: it outlived its termination grace). */
  exit: string;
  /** SIGTERM to exit. */
  stopMs: number;
  /** Exit to ready again. */
  readyMs: number;
}

/** `temporal server start-dev` on a SQLite file that survives its restarts. */
export class DevServer extends Member {
  private constructor(
    name: string,
    private readonly cli: string,
    private readonly dir: string,
    readonly port: number,
  ) {
    super(name);
  }

  static async create(cli: string, dir: string, name: string): Promise<DevServer> {
    return new DevServer(name, cli, dir, await freePort());
  }

  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  protected spawn(): Child {
    return Child.start({
      name: this.name,
      command: this.cli,
      args: [
        'server',
        'start-dev',
        '--ip',
        '127.0.0.1',
        '--port',
        String(this.port),
        '--headless',
        '--db-filename',
        join(this.dir, `${this.name}.db`),
        '--log-level',
        'error',
        ...searchAttributeArgs(),
        ...dynamicConfigArgs(),
        ...sqlitePragmaArgs(),
      ],
      logPath: join(this.dir, `${this.name}.log`),
    });
  }

  protected ready(child: Child): Promise<void> {
    return waitForNamespace(this.address, child, this.name);
  }
}

/** A worker or API process from dist/, with a health endpoint on a fixed port. */
class ServiceProcess extends Member {
  constructor(
    name: string,
    private readonly entry: string,
    private readonly env: NodeJS.ProcessEnv,
    readonly healthUrl: string,
    private readonly logPath: string,
  ) {
    super(name);
  }

  protected spawn(): Child {
    return Child.start({
      name: this.name,
      command: process.execPath,
      args: [this.entry],
      env: this.env,
      logPath: this.logPath,
    });
  }

  protected ready(child: Child): Promise<void> {
    return waitUntil(
      async () => (await fetch(`${this.healthUrl}/readyz`, { signal: AbortSignal.timeout(2000) })).ok,
      {
        timeoutMs: 120_000,
        intervalMs: 250,
        what: `${this.name} /readyz`,
        giveUp: () => (child.isRunning ? undefined : `${this.name} exited: ${child.tail()}`),
      },
    );
  }
}

export class FaultStack {
  private constructor(
    readonly server: DevServer,
    readonly workers: readonly ServiceProcess[],
    readonly apis: readonly ServiceProcess[],
  ) {}

  get apiUrls(): string[] {
    return this.apis.map((api) => api.healthUrl);
  }

  static async start(options: StackOptions): Promise<FaultStack> {
    const server = await DevServer.create(options.cli, options.dir, `${options.name}-temporal`);
    await server.start();
    const common: NodeJS.ProcessEnv = {
      ...process.env,
      TEMPORAL_ADDRESS: server.address,
      TASK_QUEUE: `faults-${options.name}`,
      LOG_LEVEL: 'warn',
      // The receiver is on loopback: allowed explicitly, as in the tests and scripts/dev.sh.
      CALLBACK_ALLOW_CIDRS: '127.0.0.0/8',
      // Callbacks are signed; without a secret they fail rather than go out unsigned.
      WEBHOOK_SECRET: mintWebhookSecret(),
      // No balancer to leave between scenarios; the rolling scenario sets its own.
      SHUTDOWN_NOT_READY_SECONDS: '0',
      ...options.env,
    };
    const workers: ServiceProcess[] = [];
    for (let i = 0; i < options.workers; i++) {
      const port = await freePort();
      workers.push(
        new ServiceProcess(
          `${options.name}-worker-${i}`,
          join(options.distDir, 'worker/main.js'),
          { ...common, WORKER_PORT: String(port), WORKER_SDK_METRICS_PORT: String(await freePort()) },
          `http://127.0.0.1:${port}`,
          join(options.dir, `${options.name}-worker-${i}.log`),
        ),
      );
    }
    const apis: ServiceProcess[] = [];
    for (let i = 0; i < options.apis; i++) {
      const port = await freePort();
      apis.push(
        new ServiceProcess(
          `${options.name}-api-${i}`,
          join(options.distDir, 'api/main.js'),
          { ...common, HOST: '127.0.0.1', PORT: String(port) },
          `http://127.0.0.1:${port}`,
          join(options.dir, `${options.name}-api-${i}.log`),
        ),
      );
    }
    const stack = new FaultStack(server, workers, apis);
    try {
      await Promise.all([...workers, ...apis].map((member) => member.start()));
    } catch (err) {
      await stack.stop();
      throw err;
    }
    return stack;
  }

  /** Resident memory of each role now, bytes (a role with several processes: their sum). */
  rss(): Record<string, number | undefined> {
    const sum = (members: readonly Member[]) => {
      const values = members.map((member) => member.rssBytes());
      return values.some((value) => value === undefined) ? undefined : values.reduce((a, b) => a! + b!, 0);
    };
    return { api: sum(this.apis), worker: sum(this.workers), temporal: this.server.rssBytes() };
  }

  async stop(): Promise<void> {
    await Promise.all(this.apis.map((api) => api.stop()));
    await Promise.all(this.workers.map((worker) => worker.stop(30_000)));
    await this.server.stop();
  }
}

export type { ServiceProcess };
