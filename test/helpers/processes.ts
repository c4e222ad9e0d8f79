/**
 * Runs the real API and worker entry points as child processes (as users deploy them) and keeps
 * their JSON log lines for assertions.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { TEST_ENV } from './test-env.js';
import { waitFor } from './wait.js';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export class ServiceProcess {
  readonly lines: Record<string, unknown>[] = [];
  private readonly child: ChildProcess;
  private exited: Promise<number | null>;

  constructor(
    readonly name: string,
    entry: string,
    env: Record<string, string>,
  ) {
    this.child = spawn(process.execPath, ['--import', 'tsx', entry], {
      // Loopback receivers allowed and a signing secret set (test-env.ts), unless `env` says otherwise.
      env: { ...process.env, ...TEST_ENV, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let buffered = '';
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const parts = buffered.split('\n');
      buffered = parts.pop() ?? '';
      for (const line of parts) {
        try {
          this.lines.push(JSON.parse(line) as Record<string, unknown>);
        } catch {
          this.lines.push({ raw: line });
        }
      }
    };
    this.child.stdout?.on('data', onData);
    this.child.stderr?.on('data', onData);
    this.exited = new Promise((resolve) => this.child.once('exit', (code) => resolve(code)));
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  async waitUntilHealthy(url: string, timeoutMs = 60_000): Promise<void> {
    await waitFor(async () => (await fetch(url)).ok, {
      timeoutMs,
      intervalMs: 250,
      what: `${this.name} at ${url}`,
    });
  }

  /** Sends a signal (SIGHUP: reload the API keys). */
  signal(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }

  /** The exit code once the process has exited by itself. */
  async exitCode(): Promise<number | null> {
    return this.exited;
  }

  /** Waits for a log line matching `accept`; returns it. */
  async waitForLine(
    accept: (line: Record<string, unknown>) => boolean,
    what: string,
    timeoutMs = 30_000,
  ): Promise<Record<string, unknown>> {
    return waitFor(() => this.lines.find(accept), { timeoutMs, intervalMs: 50, what });
  }

  /** SIGTERM, then the exit code once it has drained. */
  async stop(): Promise<number | null> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGTERM');
    return this.exited;
  }
}
