/**
 * Local launcher (README's first command): the Temporal dev server with a persistent SQLite file
 * (unless TEMPORAL_ADDRESS names a server), then the worker and the API. Ctrl-C stops all of it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Connection } from '@temporalio/client';
import { dynamicConfigArgs, searchAttributeArgs, sqlitePragmaArgs } from '../temporal/dev-server.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const children: ChildProcess[] = [];
const env = { ...process.env };
const externalServer = env.TEMPORAL_ADDRESS;
const uiPort = Number(env.TEMPORAL_UI_PORT ?? 8233);
// The operator console is on in development, linked to the dev server's Web UI.
env.CONSOLE_ENABLED ??= 'true';
if (!env.TEMPORAL_ADDRESS) env.TEMPORAL_UI_URL ??= `http://127.0.0.1:${uiPort}`;
// Where the dev server keeps its SQLite file; the fault matrix points it elsewhere.
const dataDir = env.DEV_DATA_DIR ?? `${root}/.data`;

function run(name: string, command: string, args: string[]): ChildProcess {
  const child = spawn(command, args, { cwd: root, env, stdio: ['ignore', 'inherit', 'inherit'] });
  child.on('exit', (code, signal) => {
    if (!stopping) {
      console.error(`[dev] ${name} exited (${signal ?? code}); stopping everything`);
      void stop(1);
    }
  });
  children.push(child);
  return child;
}

let stopping = false;
async function stop(exitCode = 0): Promise<void> {
  if (stopping) return;
  stopping = true;
  // Reverse order: API, worker, then the server once they are gone.
  for (const child of [...children].reverse()) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
  }
  process.exit(exitCode);
}
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());

async function waitForTemporal(address: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1000 });
      await connection.workflowService.describeNamespace({ namespace: env.TEMPORAL_NAMESPACE ?? 'default' });
      await connection.close();
      return;
    } catch (err) {
      if (Date.now() > deadline)
        throw new Error(`Temporal at ${address} did not become ready: ${(err as Error).message}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

async function waitForReady(url: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (!stopping) {
    const ok = await fetch(url)
      .then((res) => res.ok)
      .catch(() => false);
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`${url} did not become ready`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

let address = externalServer;
if (!address) {
  const cli = env.TEMPORAL_CLI_PATH;
  if (!cli) throw new Error('TEMPORAL_CLI_PATH is not set; start through scripts/dev.sh');
  const port = Number(env.TEMPORAL_PORT ?? 7233);
  mkdirSync(dataDir, { recursive: true });
  address = `127.0.0.1:${port}`;
  env.TEMPORAL_ADDRESS = address;
  run('temporal dev server', cli, [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(port),
    '--ui-port',
    String(uiPort),
    '--db-filename',
    `${dataDir}/temporal.db`,
    '--log-level',
    'error',
    ...searchAttributeArgs(),
    ...dynamicConfigArgs(),
    ...sqlitePragmaArgs(),
  ]);
}
await waitForTemporal(address, 60_000);
run('worker', process.execPath, ['dist/worker/main.js']);
run('api', process.execPath, ['dist/api/main.js']);

const apiHost = env.HOST ?? '127.0.0.1';
const apiPort = env.PORT ?? '3000';
const workerUrl = `http://${env.WORKER_HOST ?? '127.0.0.1'}:${env.WORKER_PORT ?? '3001'}`;
await Promise.all([waitForReady(`http://${apiHost}:${apiPort}/readyz`), waitForReady(`${workerUrl}/readyz`)]);
console.log(`
[dev] Delayed task service is up:
  HTTP API        http://${apiHost}:${apiPort}   (docs: /docs, health: /healthz, /readyz, metrics: /metrics)
  Console         ${env.CONSOLE_ENABLED === 'true' ? `http://${apiHost}:${apiPort}/console` : 'off (CONSOLE_ENABLED=false)'}
  Worker          ${workerUrl}   (health: /healthz, /readyz, metrics: /metrics)
  Temporal        ${address}${externalServer ? ' (external server)' : `   (data: ${dataDir}/temporal.db)\n  Temporal Web UI http://127.0.0.1:${uiPort}`}
  Press Ctrl-C to stop.
`);
