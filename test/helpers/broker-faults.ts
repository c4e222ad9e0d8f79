/**
 * Faults for the broker tests, done to real processes: a broker server frozen (SIGSTOP) so that a
 * publish sent to it waits unread in its socket, the worker run as its own process (as deployed) to
 * be killed and scraped, and the worker's broker metrics read from its /metrics as Prometheus would.
 */
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Harness } from './harness.js';
import { freePort, ServiceProcess } from './processes.js';

const root = join(import.meta.dirname, '../..');

/** The pid of a server scripts/local-server.sh started (its pid file). */
function serverPid(name: string): number {
  return Number(readFileSync(join(root, '.data/servers', name, 'pid'), 'utf8').trim());
}

/** Stops the server's process where it stands: connections stay open, nothing sent to it is read. */
export function freezeServer(name: string): void {
  process.kill(serverPid(name), 'SIGSTOP');
}

export function thawServer(name: string): void {
  process.kill(serverPid(name), 'SIGCONT');
}

/**
 * Bytes clients sent to the server listening on `port` that it has not read yet: the receive queues
 * of its established connections (/proc/net/tcp and tcp6, `rx_queue`). With the server frozen, more
 * than 0 means a request reached it and waits there.
 */
export function unreadBytes(port: number): number {
  let total = 0;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const [, local, , state, queues] = line.trim().split(/\s+/);
      // 01: ESTABLISHED; the local address is the server's side of the connection.
      if (!local || state !== '01' || parseInt(local.split(':')[1]!, 16) !== port) continue;
      total += parseInt(queues!.split(':')[1]!, 16);
    }
  }
  return total;
}

/**
 * Connections this process holds open to a server on `port` (its sockets, by inode, among the
 * established ones of /proc/net/tcp and tcp6 whose remote port is `port`): an in-process worker's.
 */
export function connectionsTo(port: number): number {
  const mine = new Set<string>();
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      if (target.startsWith('socket:[')) mine.add(target.slice(8, -1));
    } catch {
      // Closed since it was listed.
    }
  }
  let count = 0;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      const [, , remote, state] = fields;
      if (!remote || state !== '01' || parseInt(remote.split(':')[1]!, 16) !== port) continue;
      if (mine.has(fields[9]!)) count += 1;
    }
  }
  return count;
}

/** A worker process on the harness's task queue, with these brokers and task policies; healthy. */
export async function startWorkerProcess(
  h: Harness,
  env: { BROKERS_FILE: string; policies?: Record<string, unknown> },
): Promise<{ worker: ServiceProcess; metricsUrl: string }> {
  const [port, sdkPort] = await Promise.all([freePort(), freePort()]);
  const policiesFile = env.policies ? join(mkdtempSync(join(tmpdir(), 'policies-')), 'policies.json') : '';
  if (env.policies) writeFileSync(policiesFile, JSON.stringify(env.policies));
  const worker = new ServiceProcess('worker', 'src/worker/main.ts', {
    TEMPORAL_ADDRESS: h.config.temporal.address,
    TASK_QUEUE: h.taskQueue,
    BROKERS_FILE: env.BROKERS_FILE,
    WORKER_PORT: String(port),
    WORKER_SDK_METRICS_PORT: String(sdkPort),
    ...(policiesFile && { TASK_POLICIES_FILE: policiesFile }),
  });
  await worker.waitUntilHealthy(`http://127.0.0.1:${port}/readyz`);
  return { worker, metricsUrl: `http://127.0.0.1:${port}/metrics` };
}

/** One broker's series on a worker's /metrics. */
export interface BrokerSeries {
  published: number;
  failed: number;
  held: number;
  /** Publishes timed by `delayed_tasks_broker_publish_seconds` (its `_count`) and their total seconds. */
  timed: number;
  seconds: number;
}

/** Scrapes a worker's /metrics and reads the broker's publish counters and latency histogram. */
export async function brokerSeries(metricsUrl: string, broker: string, kind: string): Promise<BrokerSeries> {
  const response = await fetch(metricsUrl);
  if (!response.ok) throw new Error(`${metricsUrl} answered ${response.status}`);
  const text = await response.text();
  const value = (name: string, labels: string): number => {
    const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}} `));
    return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
  };
  const target = `broker="${broker}",kind="${kind}"`;
  const outcome = (name: string) =>
    value('delayed_tasks_broker_publishes_total', `${target},outcome="${name}"`);
  return {
    published: outcome('published'),
    failed: outcome('failed'),
    held: outcome('held'),
    timed: value('delayed_tasks_broker_publish_seconds_count', target),
    seconds: value('delayed_tasks_broker_publish_seconds_sum', target),
  };
}
