/**
 * The two fault flows every broker kind goes through, against a broker server of the test file's own
 * (scripts/local-server.sh `<kind>@broker-faults`) declared as broker `down`, the API in this process
 * and a worker run as its own process, as deployed:
 * - the broker down: each attempt fails, retried with the task type's backoff, then dead-lettered;
 *   replayed once the broker is back, it succeeds; the worker's /metrics counted every failure and
 *   the publish, and timed each;
 * - the worker killed (-9) mid-publish: the broker frozen, the publish waits unread in its socket; a
 *   new worker (in this process) publishes again and the task succeeds.
 * What the broker holds afterwards is the test file's to check, in its broker's own terms.
 */
import { expect } from 'vitest';
import { brokerSeries, freezeServer, startWorkerProcess, thawServer, unreadBytes } from './broker-faults.js';
import { localServer, stopLocalServer } from './brokers.js';
import { Harness } from './harness.js';
import type { ServiceProcess } from './processes.js';
import { uniqueId, waitForStatus } from './tasks.js';
import { waitFor } from './wait.js';

/** The task type's backoff the outage flow checks between attempts: 300 ms, then 600 ms. */
const RETRY = { immediateRetries: 0, initialIntervalMs: 300, multiplier: 2, maxIntervalMs: 600 };

export interface FaultyBroker {
  /** The broker's kind, as its BROKERS_FILE entry and the metrics' `kind` label name it. */
  kind: 'kafka' | 'rabbitmq';
  /** The task type the flows publish; its retry policy is the one above. */
  taskType: string;
  /** Declares what the broker at `url` needs and writes a BROKERS_FILE naming it `down`; its path. */
  brokersFile: (url: string) => string | Promise<string>;
}

/** A task's delivery fields past the broker's name: `{ topic }`, `{ exchange }`. */
export type Destination = Record<string, string>;

/** A broker server, the API and a worker process for the fault flows; start in beforeAll, stop in afterAll. */
export class BrokerFaults {
  readonly server: string;
  h!: Harness;
  /** The broker server's URL, as scripts/local-server.sh prints it. */
  url = '';
  /** The worker process: scraped in the outage flow, killed in the mid-publish one. */
  private worker: ServiceProcess | undefined;
  private metricsUrl = '';
  private frozen = false;

  constructor(private readonly broker: FaultyBroker) {
    this.server = `${broker.kind}@broker-faults`;
  }

  async start(): Promise<void> {
    this.url = localServer(this.server);
    const BROKERS_FILE = await this.broker.brokersFile(this.url);
    const policies = { taskTypes: { [this.broker.taskType]: { retry: RETRY } } };
    this.h = await Harness.start({ env: { BROKERS_FILE }, policies, workers: false });
    ({ worker: this.worker, metricsUrl: this.metricsUrl } = await startWorkerProcess(this.h, {
      BROKERS_FILE,
      policies,
    }));
  }

  /** Stops whatever started, the broker server last (thawed first if a flow left it frozen). */
  async stop(): Promise<void> {
    if (this.frozen) thawServer(this.server);
    await this.worker?.stop();
    await this.h?.stop();
    stopLocalServer(this.server);
  }

  publish(taskId: string, destination: Destination, extra: Record<string, unknown> = {}) {
    return this.h.create({
      taskType: this.broker.taskType,
      taskId,
      payload: { orderId: 1 },
      delaySeconds: 0,
      delivery: { mode: 'broker', broker: 'down', ...destination },
      ...extra,
    });
  }

  /** Publishes a task and waits for it: the worker's connection to the broker is open (as in production). */
  async warmUp(destination: Destination): Promise<void> {
    const taskId = uniqueId(`${this.broker.kind}.warm`);
    expect((await this.publish(taskId, destination)).status).toBe(201);
    await waitForStatus(this.h, taskId, 'SUCCEEDED', 60_000);
  }

  /**
   * Stops the broker, publishes a task that fails three times with the backoff between attempts and
   * is dead-lettered; restarts the broker on the same URL (`restored` then declares again what the
   * broker lost), replays the task and waits until it succeeded. Checks the worker's /metrics at
   * each step; returns the task's id.
   */
  async downThenReplay(destination: Destination, restored?: () => Promise<void>): Promise<string> {
    const before = await this.series();
    stopLocalServer(this.server);
    const taskId = uniqueId(`${this.broker.kind}.down`);
    expect((await this.publish(taskId, destination, { maxRetries: 2, timeoutMs: 2000 })).status).toBe(201);
    const failed = await waitForStatus(this.h, taskId, 'FAILED', 60_000);
    expect(failed.attempts).toBe(3);
    expect(failed.lastError?.message).toMatch(/^broker down: /);
    const history = failed.attemptHistory ?? [];
    expect(history.map((a) => a.outcome)).toEqual(['RETRYABLE_ERROR', 'RETRYABLE_ERROR', 'RETRYABLE_ERROR']);
    const starts = history.map((a) => Date.parse(a.startedAt));
    expect(starts[1]! - starts[0]!).toBeGreaterThanOrEqual(RETRY.initialIntervalMs);
    expect(starts[2]! - starts[1]!).toBeGreaterThanOrEqual(RETRY.maxIntervalMs);
    const down = await this.series();
    expect(down.failed - before.failed).toBe(3);
    expect(down.published).toBe(before.published);
    expect(down.timed - before.timed).toBe(3);

    expect(localServer(this.server)).toBe(this.url);
    await restored?.();
    const replayed = await this.h.call('POST', `/api/v1/tasks/${encodeURIComponent(taskId)}/replay`);
    expect(replayed.status).toBe(200);
    await waitForStatus(this.h, taskId, 'SUCCEEDED', 60_000);
    const back = await this.series();
    expect(back.published - down.published).toBe(1);
    expect(back.failed).toBe(down.failed);
    expect(back.timed - down.timed).toBe(1);
    expect(back.seconds).toBeGreaterThan(down.seconds);
    return taskId;
  }

  /**
   * Freezes the broker (listening on `port`), publishes a task and waits until its publish reached
   * the broker unread; kills the worker process (-9), thaws the broker, starts workers in this
   * process and waits until the task succeeded. Returns the task's id.
   */
  async killMidPublish(destination: Destination, port: number): Promise<string> {
    freezeServer(this.server);
    this.frozen = true;
    const idle = unreadBytes(port);
    const taskId = uniqueId(`${this.broker.kind}.kill`);
    expect((await this.publish(taskId, destination, { timeoutMs: 1000 })).status).toBe(201);
    await waitFor(() => unreadBytes(port) > idle, {
      timeoutMs: 30_000,
      what: 'the publish to wait in the frozen broker',
    });
    this.worker!.signal('SIGKILL');
    await this.worker!.exitCode();
    this.worker = undefined;
    thawServer(this.server);
    this.frozen = false;

    await this.h.startWorkers();
    await waitForStatus(this.h, taskId, 'SUCCEEDED', 60_000);
    return taskId;
  }

  private series() {
    return brokerSeries(this.metricsUrl, 'down', this.broker.kind);
  }
}
