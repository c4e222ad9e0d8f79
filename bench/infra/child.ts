/**
 * Child processes the benchmark starts: output to a log file, stopped by pid (SIGTERM, then SIGKILL),
 * and every one still running is stopped when the benchmark exits.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, closeSync, readFileSync } from 'node:fs';

export interface ChildSpec {
  name: string;
  command: string;
  args: readonly string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** stdout and stderr go here. */
  logPath: string;
  /** Open an IPC channel; the child signals readiness with `process.send('ready')`. */
  ipc?: boolean;
}

const running = new Set<Child>();

export class Child {
  readonly pid: number;
  /** Resolves when the child exits, with its exit code or signal. */
  readonly exited: Promise<string>;
  /** With `ipc`: resolves on the child's 'ready' message, rejects if it exits first. */
  readonly ready: Promise<void>;
  private done = false;

  private constructor(
    private readonly spec: ChildSpec,
    private readonly process: ChildProcess,
  ) {
    if (process.pid === undefined) throw new Error(`${spec.name} did not start`);
    this.pid = process.pid;
    running.add(this);
    this.exited = new Promise((resolve) => {
      process.once('exit', (code, signal) => {
        this.done = true;
        running.delete(this);
        resolve(signal ?? String(code));
      });
    });
    this.ready = new Promise((resolve, reject) => {
      process.on('message', (message) => {
        if (message === 'ready') resolve();
      });
      void this.exited.then((how) =>
        reject(new Error(`${spec.name} exited (${how}) before it was ready: ${this.tail()}`)),
      );
    });
    this.ready.catch(() => undefined);
  }

  static start(spec: ChildSpec): Child {
    const log = openSync(spec.logPath, 'a');
    try {
      const stdio = spec.ipc ? ['ignore', log, log, 'ipc'] : ['ignore', log, log];
      const child = spawn(spec.command, spec.args, {
        cwd: spec.cwd,
        env: spec.env ?? process.env,
        stdio: stdio as never,
      });
      return new Child(spec, child);
    } finally {
      closeSync(log);
    }
  }

  get name(): string {
    return this.spec.name;
  }

  get isRunning(): boolean {
    return !this.done;
  }

  /** The end of the child's log, for error messages. */
  tail(chars = 2000): string {
    try {
      return readFileSync(this.spec.logPath, 'utf8').slice(-chars);
    } catch {
      return '';
    }
  }

  /** Sends `signal` as is: SIGKILL for a crash, SIGSTOP/SIGCONT to freeze and resume. */
  signal(signal: NodeJS.Signals): void {
    if (!this.done) this.process.kill(signal);
  }

  /** SIGTERM, then SIGKILL after `graceMs`. */
  async stop(graceMs = 10_000): Promise<void> {
    if (this.done) return;
    this.process.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const killed = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        if (!this.done) this.process.kill('SIGKILL');
        resolve();
      }, graceMs);
    });
    await Promise.race([this.exited, killed]);
    clearTimeout(timer);
    await this.exited;
  }

  /** Stops every child still running (benchmark exit, failure or Ctrl-C). */
  static async stopAll(): Promise<void> {
    await Promise.all([...running].map((child) => child.stop(5_000)));
  }

  /** Synchronous last resort on process exit. */
  static killAll(): void {
    for (const child of running) child.process.kill('SIGKILL');
  }
}
