/** A Redis of the benchmark's own (Debian's redis-server): loopback only, no persistence. */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { Child } from './child.js';
import { freePort } from './ports.js';
import { waitUntil } from './wait.js';

function installedVersion(): string | undefined {
  try {
    const out = execFileSync('redis-server', ['--version'], { encoding: 'utf8' });
    return /v=(\S+)/.exec(out)?.[1] ?? 'unknown';
  } catch {
    return undefined;
  }
}

/** Version of Debian's redis-server, installing it first when missing and allowed (root with apt-get). */
export function redisVersion(): string {
  const found = installedVersion();
  if (found) return found;
  if (process.getuid?.() === 0) {
    try {
      execFileSync(
        'sh',
        ['-c', 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server'],
        {
          stdio: ['ignore', 'ignore', 'inherit'],
        },
      );
    } catch {
      // Reported below.
    }
  }
  const installed = installedVersion();
  if (installed) return installed;
  throw new Error('redis-server not found: apt-get update && apt-get install -y redis-server');
}

export class RedisServer {
  private constructor(
    readonly port: number,
    readonly child: Child,
    private readonly admin: Redis,
  ) {}

  static async start(name: string, dir: string): Promise<RedisServer> {
    redisVersion();
    const port = await freePort();
    const args = [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      dir,
    ];
    const child = Child.start({ name, command: 'redis-server', args, logPath: join(dir, `${name}.log`) });
    const admin = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 1 });
    // Refused connections while the server starts are expected; waitUntil retries them.
    admin.on('error', () => undefined);
    await waitUntil(
      async () => {
        if (admin.status !== 'ready') await admin.connect();
        return (await admin.ping()) === 'PONG';
      },
      {
        timeoutMs: 15_000,
        intervalMs: 100,
        what: `redis-server on port ${port}`,
        giveUp: () => (child.isRunning ? undefined : `it exited: ${child.tail()}`),
      },
    );
    return new RedisServer(port, child, admin);
  }

  /** Memory Redis holds for data (INFO used_memory). */
  async usedMemory(): Promise<number> {
    const info = await this.admin.info('memory');
    return Number(/used_memory:(\d+)/.exec(info)?.[1] ?? NaN);
  }

  async stop(): Promise<void> {
    this.admin.disconnect();
    await this.child.stop();
  }
}
