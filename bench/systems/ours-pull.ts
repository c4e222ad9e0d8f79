/**
 * Our service with pull delivery: each task is created with `delivery: {mode: 'pull'}` and CONSUMERS
 * loops in this process lease it (`POST /api/v1/leases`), run its handler (ConsumerSystem: the POST to
 * the receiver) and ack it (`POST /api/v1/leases/ack`).
 */
import { setMaxListeners } from 'node:events';
import { ConsumerSystem, deliveryRequest, type DueTask } from './consumer-system.js';
import type { OursStack } from './ours-stack.js';
import type { BenchTask } from './system.js';

export const PULL_QUEUE = 'bench-pull';
export const CONSUMERS = 4;

/** The create request of `task` as a pull task: no callback URL, the delivery instead. */
export function pullRequest(task: BenchTask, queue = PULL_QUEUE, leaseSeconds = 60) {
  return deliveryRequest(task, { mode: 'pull' as const, queue, leaseSeconds });
}

interface Lease {
  leaseToken: string;
  task: DueTask;
}

export class OursPull extends ConsumerSystem {
  readonly name = 'ours-pull';
  private stopped = false;
  private readonly consumers: Promise<void>[];
  private readonly aborts = new AbortController();

  private constructor(
    stack: OursStack,
    /** `max` of each lease call. */
    private readonly max: number,
  ) {
    super(stack, 64);
    // Every request of the consumers listens to the one stop signal.
    setMaxListeners(Infinity, this.aborts.signal);
    this.consumers = Array.from({ length: CONSUMERS }, (_, i) => this.consume(`bench/${i}`));
  }

  static start(stack: OursStack, max: number): OursPull {
    return new OursPull(stack, max);
  }

  protected request(task: BenchTask) {
    return pullRequest(task);
  }

  /** One consumer: lease, run each lease's handler, ack it; again until stopped. */
  private async consume(workerIdentity: string): Promise<void> {
    while (!this.stopped) {
      try {
        const { status, text } = await this.post(
          '/api/v1/leases',
          { queues: [PULL_QUEUE], max: this.max, waitSeconds: 20, workerIdentity },
          this.aborts.signal,
        );
        if (status !== 200) throw new Error(`lease answered ${status}: ${text.slice(0, 200)}`);
        const { leases } = JSON.parse(text) as { leases: Lease[] };
        await Promise.all(leases.map((lease) => this.handleLease(lease)));
      } catch (err) {
        if (this.stopped) return;
        console.error(
          `ours-pull consumer ${workerIdentity}: ${err instanceof Error ? err.message : String(err)}`,
        );
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  }

  private async handleLease({ leaseToken, task }: Lease): Promise<void> {
    await this.handle(task);
    const { status, text } = await this.post('/api/v1/leases/ack', { leaseToken }, this.aborts.signal);
    if (status !== 200 && status !== 204) throw new Error(`ack answered ${status}: ${text.slice(0, 200)}`);
  }

  protected async stopConsumers(): Promise<void> {
    this.stopped = true;
    this.aborts.abort();
    await Promise.allSettled(this.consumers);
  }
}
