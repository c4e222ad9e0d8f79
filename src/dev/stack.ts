/**
 * What the local launcher (start.ts) needs to know about the stack it starts: the ports it listens on,
 * which of them another process holds (a second stack on the same machine), and when the API and the
 * worker are ready, or that the launcher stopped before they were.
 */
import { createServer } from 'node:net';

export interface StackPort {
  /** The variable that moves it. */
  variable: string;
  port: number;
  what: string;
}

type Env = Record<string, string | undefined>;

/**
 * Every port the stack listens on, with its variable. A second stack on one machine sets all of them
 * (and DEV_DATA_DIR), e.g. `PORT=3100 WORKER_PORT=3101 WORKER_SDK_METRICS_PORT=9564 TEMPORAL_PORT=7333
 * TEMPORAL_UI_PORT=8333 DEV_DATA_DIR=.data/second ./scripts/dev.sh`.
 */
export function stackPorts(env: Env): StackPort[] {
  const port = (variable: string, fallback: number, what: string): StackPort => ({
    variable,
    port: Number(env[variable] ?? fallback),
    what,
  });
  const ports = [
    port('PORT', 3000, 'HTTP API'),
    port('WORKER_PORT', 3001, "worker's health and metrics"),
    port('WORKER_SDK_METRICS_PORT', 9464, "worker's SDK metrics exporter"),
  ];
  if (!env.TEMPORAL_ADDRESS) {
    ports.push(
      port('TEMPORAL_PORT', 7233, 'Temporal dev server'),
      port('TEMPORAL_UI_PORT', 8233, 'Temporal Web UI'),
    );
  }
  // Port 0 is any free port; a value that is no port is config's to refuse, by name, at boot.
  return ports.filter((p) => Number.isInteger(p.port) && p.port > 0 && p.port < 65_536);
}

/** The message for ports another process holds: which ones, and the variables that move them. */
export function busyPortsMessage(busy: StackPort[]): string {
  const lines = busy.map((p) => `  ${p.port} (${p.what}): set ${p.variable}`);
  return [
    `[dev] ports in use, another stack or server on this machine?`,
    ...lines,
    `[dev] a second stack sets all of them and a data dir of its own, e.g.`,
    `  PORT=3100 WORKER_PORT=3101 WORKER_SDK_METRICS_PORT=9564 TEMPORAL_PORT=7333 TEMPORAL_UI_PORT=8333 DEV_DATA_DIR=.data/second ./scripts/dev.sh`,
  ].join('\n');
}

/** True when nothing listens on `host:port` (we could listen there ourselves). */
export async function portIsFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

/** The ports of `ports` that another process holds on `host`. */
export async function busyPorts(host: string, ports: StackPort[]): Promise<StackPort[]> {
  const free = await Promise.all(ports.map((p) => portIsFree(host, p.port)));
  return ports.filter((_, i) => !free[i]);
}

/**
 * Polls `url` until it answers 2xx: resolves true then, false as soon as `stopped()` is true (the
 * launcher is stopping: a child exited or Ctrl-C), and rejects after `timeoutMs`.
 */
export async function waitForReady(
  url: string,
  stopped: () => boolean,
  timeoutMs = 120_000,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (stopped()) return false;
    const ok = await fetch(url)
      .then((res) => res.ok)
      .catch(() => false);
    if (stopped()) return false;
    if (ok) return true;
    if (Date.now() > deadline) throw new Error(`${url} did not become ready`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
