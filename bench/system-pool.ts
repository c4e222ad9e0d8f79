/**
 * The systems of one benchmark run, each started once and kept idle while the others are measured.
 * ours-api and ours-direct share one stack (Temporal dev server, worker, API processes): the engine
 * limit is the same worker, reached without the API. `reset` replaces a system with a fresh one (new
 * store, new processes) when a load it could not absorb left it a backlog; resetting either of ours
 * resets both. The broker systems' servers (scripts/local-server.sh) start before the stack, which
 * declares them, and run until the end: a reset keeps them (each consumer reads a destination of its own).
 */
import { CpuMeter } from './infra/cpu.js';
import { LocalBroker } from './infra/local-brokers.js';
import { sleep } from './infra/wait.js';
import { OursStack } from './systems/ours-stack.js';
import { brokerServersOf, startSystem } from './systems/index.js';
import { DELIVERY_VARIANTS, type System, type SystemEnv, type SystemName } from './systems/system.js';

/** The systems on ours' stack (temporal-floor uses its server): resetting one resets them all. */
const OURS: readonly SystemName[] = ['ours-api', ...DELIVERY_VARIANTS, 'ours-direct', 'temporal-floor'];
/** Those of them that create tasks through the API. */
const THROUGH_API: readonly SystemName[] = ['ours-api', ...DELIVERY_VARIANTS];

export class SystemPool {
  private readonly running = new Map<SystemName, System>();
  private stack: Promise<OursStack> | undefined;
  private brokers: Promise<LocalBroker[]> | undefined;

  constructor(
    private readonly env: SystemEnv,
    readonly names: readonly SystemName[],
  ) {}

  /** Starts every system, then waits until all are idle (a new Temporal server sets itself up for a while). */
  async startAll(log: (message: string) => void): Promise<void> {
    await Promise.all(
      this.names.map(async (name) => {
        const started = Date.now();
        await this.start(name);
        log(`${name} ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      }),
    );
    const waited = await Promise.all(this.names.map((name) => this.settle(name, 60)));
    log(`idle after ${Math.max(...waited.map((s) => s ?? 60)).toFixed(0)} s more`);
  }

  get(name: SystemName): System {
    const system = this.running.get(name);
    if (!system) throw new Error(`${name} is not running`);
    return system;
  }

  /** Replaces a system with a fresh one and waits until that one is idle. */
  async reset(name: SystemName): Promise<void> {
    const affected = OURS.includes(name) ? this.names.filter((n) => OURS.includes(n)) : [name];
    for (const n of affected) await this.stopOne(n);
    if (OURS.includes(name)) await this.stopStack();
    for (const n of affected) await this.start(n);
    await this.settle(name, 60);
  }

  /**
   * Waits until the system's processes are idle (under a tenth of a core for a second), so that work
   * left over from one phase (a Temporal backlog, a server setting itself up) does not run into the
   * next measurement. Returns the seconds waited, or null when still busy after `maxS`.
   */
  async settle(name: SystemName, maxS: number): Promise<number | null> {
    const started = Date.now();
    const processes = this.get(name).processes();
    while (Date.now() - started < maxS * 1000) {
      const cpu = new CpuMeter(processes);
      await sleep(1000);
      const used = Object.values(cpu.stop()).reduce((a, b) => a + (Number.isFinite(b) ? b : 0), 0);
      if (used < 0.1) return Math.round((Date.now() - started) / 100) / 10;
    }
    return null;
  }

  async stopAll(): Promise<void> {
    try {
      for (const name of [...this.running.keys()]) await this.stopOne(name);
      await this.stopStack();
    } finally {
      await LocalBroker.stopAll();
    }
  }

  private async start(name: SystemName): Promise<void> {
    this.running.set(name, await startSystem(name, this.env, () => this.ours()));
  }

  private ours(): Promise<OursStack> {
    const apiProcesses = this.names.some((name) => THROUGH_API.includes(name)) ? this.env.apiProcesses : 0;
    this.brokers ??= Promise.all(
      brokerServersOf(this.names).map((server) => LocalBroker.start(this.env.root, server)),
    );
    this.stack ??= this.brokers.then((brokers) => OursStack.start(this.env, 'ours', apiProcesses, brokers));
    return this.stack;
  }

  private async stopOne(name: SystemName): Promise<void> {
    await this.running.get(name)?.stop();
    this.running.delete(name);
  }

  private async stopStack(): Promise<void> {
    const stack = this.stack;
    this.stack = undefined;
    await (await stack?.catch(() => undefined))?.stop();
  }
}
