/**
 * The fault matrix's client: creates tasks through the HTTP API at a fixed rate, as a well-behaved
 * service would. Each task has its own id and a fixed `executeAt`, so a create retried after a 5xx or
 * a network error (on the next API process, when there are several) is the same request, and the
 * API's idempotent create answers 200 if the first one went through.
 */
import { randomUUID } from 'node:crypto';
import { sleep } from '../infra/wait.js';

export interface LoadOptions {
  /** API processes to send to, in turn; a function: those a load balancer has in rotation now. */
  apiUrls: readonly string[] | (() => readonly string[]);
  callbackUrl: string;
  /** Tasks created per second. */
  rate: number;
  durationMs: number;
  /** Due this long after the create is first sent: uniformly in [min, max] ms. */
  delayMs: readonly [number, number];
  /** The tasks' callback attempt timeout. */
  timeoutMs: number;
  maxRetries: number;
  /** A create still unacknowledged this long after it was first sent is given up (and reported). */
  giveUpMs: number;
}

export interface CreatedTask {
  taskId: string;
  dueMs: number;
  firstSentMs: number;
  /** When the API acknowledged it (201 or 200); undefined if it never did. */
  ackedMs: number | undefined;
  attempts: number;
}

/** One create answered 503: how long the API took to say so. */
export interface Refusal {
  atMs: number;
  status: number;
  elapsedMs: number;
}

export class Load {
  readonly tasks: CreatedTask[] = [];
  readonly refusals: Refusal[] = [];
  networkErrors = 0;
  otherErrors: string[] = [];
  private next = 0;
  /** Every task id of this load starts with it. */
  readonly idPrefix = `faults-${randomUUID().slice(0, 8)}-`;

  constructor(private readonly options: LoadOptions) {}

  get retries(): number {
    return this.tasks.reduce((sum, task) => sum + Math.max(0, task.attempts - 1), 0);
  }

  /** Sends creates at the rate for the duration; resolves once every create is acknowledged or given up. */
  async run(): Promise<void> {
    const { rate, durationMs, delayMs } = this.options;
    const started = Date.now();
    const count = Math.floor((rate * durationMs) / 1000);
    const pending: Promise<void>[] = [];
    for (let i = 0; i < count; i++) {
      await sleep(started + (i * 1000) / rate - Date.now());
      const sentMs = Date.now();
      const task: CreatedTask = {
        taskId: `${this.idPrefix}${i}`,
        dueMs: sentMs + delayMs[0] + Math.random() * (delayMs[1] - delayMs[0]),
        firstSentMs: sentMs,
        ackedMs: undefined,
        attempts: 0,
      };
      this.tasks.push(task);
      pending.push(this.create(task, i));
    }
    await Promise.all(pending);
  }

  private async create(task: CreatedTask, i: number): Promise<void> {
    const body = JSON.stringify({
      taskType: 'faults.check',
      taskId: task.taskId,
      payload: { i },
      executeAt: new Date(task.dueMs).toISOString(),
      callbackUrl: this.options.callbackUrl,
      maxRetries: this.options.maxRetries,
      timeoutMs: this.options.timeoutMs,
    });
    let backoff = 250;
    while (Date.now() - task.firstSentMs < this.options.giveUpMs) {
      task.attempts++;
      const { apiUrls } = this.options;
      const urls = typeof apiUrls === 'function' ? apiUrls() : apiUrls;
      const url = urls[this.next++ % urls.length]!;
      const began = Date.now();
      try {
        const res = await fetch(`${url}/api/v1/tasks`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
          signal: AbortSignal.timeout(15_000),
        });
        await res.arrayBuffer();
        if (res.status === 200 || res.status === 201) {
          task.ackedMs = Date.now();
          return;
        }
        if (res.status >= 500 || res.status === 429) {
          this.refusals.push({ atMs: began, status: res.status, elapsedMs: Date.now() - began });
        } else {
          // A 4xx is a bug of the harness or the service, never retried.
          this.otherErrors.push(`${task.taskId}: HTTP ${res.status}`);
          return;
        }
      } catch {
        this.networkErrors++;
      }
      await sleep(backoff * (0.5 + Math.random() / 2));
      backoff = Math.min(backoff * 2, 2_000);
    }
  }
}
