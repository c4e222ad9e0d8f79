/**
 * The peer: BullMQ delayed jobs on a Redis of its own. Jobs are added from the benchmark process; a
 * separate worker process (bullmq-worker.ts) POSTs the callbacks.
 */
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { Child } from '../infra/child.js';
import type { ProcessRef } from '../infra/memory.js';
import { RedisServer } from '../infra/redis-server.js';
import type { CallbackTask } from './callback.js';
import type { BenchTask, System, SystemEnv } from './system.js';

const QUEUE_NAME = 'bench-callbacks';
/** Callbacks in flight per worker process: the service's default per task type (DEFAULT_CONCURRENCY). */
const CONCURRENCY = 100;

export class Bullmq implements System {
  readonly name = 'bullmq';
  readonly storeKind = 'Redis used_memory';

  private constructor(
    private readonly redis: RedisServer,
    private readonly worker: Child,
    private readonly queue: Queue<CallbackTask>,
  ) {}

  static async start(env: SystemEnv): Promise<Bullmq> {
    const redis = await RedisServer.start('bullmq-redis', env.runDir);
    const worker = Child.start({
      name: 'bullmq-worker',
      command: process.execPath,
      args: [env.entries.bullmqWorker],
      env: { ...process.env, REDIS_PORT: String(redis.port), QUEUE_NAME, CONCURRENCY: String(CONCURRENCY) },
      logPath: join(env.runDir, 'bullmq-worker.log'),
      ipc: true,
    });
    await worker.ready;
    const queue = new Queue<CallbackTask>(QUEUE_NAME, {
      connection: { host: '127.0.0.1', port: redis.port, maxRetriesPerRequest: null },
    });
    await queue.waitUntilReady();
    return new Bullmq(redis, worker, queue);
  }

  async create(task: BenchTask): Promise<void> {
    const data: CallbackTask = {
      taskId: task.taskId,
      taskType: task.taskType,
      payload: task.payload,
      executeAt: new Date(task.executeAtMs).toISOString(),
      callbackUrl: task.callbackUrl,
    };
    await this.queue.add(task.taskType, data, {
      delay: Math.max(0, task.executeAtMs - Date.now()),
      attempts: task.maxRetries + 1,
      backoff: { type: 'exponential', delay: 1000 },
      jobId: task.taskId,
    });
  }

  processes(): ProcessRef[] {
    return [
      { role: 'worker', pid: this.worker.pid, kind: 'service' },
      { role: 'redis', pid: this.redis.child.pid, kind: 'store' },
    ];
  }

  async storeBytes(): Promise<number> {
    return this.redis.usedMemory();
  }

  async stop(): Promise<void> {
    await this.queue.close();
    await this.worker.stop();
    await this.redis.stop();
  }
}
