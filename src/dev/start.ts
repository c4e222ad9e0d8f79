/**
 * Local launcher (README's first command): the Temporal dev server with a persistent SQLite file
 * (unless TEMPORAL_ADDRESS names a server), then the worker and the API. Ctrl-C stops all of it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Connection } from '@temporalio/client';
import { mintPayloadKey } from '../security/payload-codec.js';
import { mintWebhookSecret } from '../security/webhook-signature.js';
import {
  addMissingSearchAttributes,
  dynamicConfigArgs,
  searchAttributeArgs,
  sqlitePragmaArgs,
} from '../temporal/dev-server.js';
import { busyPorts, busyPortsMessage, stackPorts, waitForReady } from './stack.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const children: ChildProcess[] = [];
const env = { ...process.env };
const externalServer = env.TEMPORAL_ADDRESS;
const uiPort = Number(env.TEMPORAL_UI_PORT ?? 8233);
// The operator console is on in development, linked to the dev server's Web UI.
env.CONSOLE_ENABLED ??= 'true';
if (!env.TEMPORAL_ADDRESS) env.TEMPORAL_UI_URL ??= `http://127.0.0.1:${uiPort}`;
// Where the dev server keeps its SQLite file (and dev keys); the fault matrix points it elsewhere.
const dataDir = env.DEV_DATA_DIR ?? join(root, '.data');
mkdirSync(dataDir, { recursive: true });

/** Writes `content()` to `path` once (owner-only), and says so. */
function once(path: string, what: string, content: () => string): void {
  if (existsSync(path)) return;
  writeFileSync(path, content(), { mode: 0o600 });
  console.log(`[dev] generated ${what}: ${path}`);
}

// Local security defaults, each overridable from the environment:
// - the callback receivers one runs locally listen on loopback, which the SSRF guard refuses by
//   default: dev allows loopback explicitly;
// - callbacks are signed with a secret generated once into .data/ (the `default` owner's);
// - payloads are encrypted with a key generated once into .data/, and the Web UI decodes them
//   through the API's codec endpoint (loopback clients only, no token needed locally).
if (env.CALLBACK_ALLOW_CIDRS === undefined) {
  env.CALLBACK_ALLOW_CIDRS = '127.0.0.0/8,::1/128';
  console.log('[dev] callbacks to loopback allowed (CALLBACK_ALLOW_CIDRS=127.0.0.0/8,::1/128)');
}
if (env.WEBHOOK_SECRET === undefined && env.WEBHOOK_SECRETS_FILE === undefined) {
  env.WEBHOOK_SECRETS_FILE = join(dataDir, 'webhook-secrets.json');
  once(env.WEBHOOK_SECRETS_FILE, 'a webhook signing secret', () =>
    JSON.stringify({ owners: { default: [mintWebhookSecret()] } }, null, 2),
  );
}
if (env.PAYLOAD_ENCRYPTION_KEYS === undefined && env.PAYLOAD_ENCRYPTION_KEYS_FILE === undefined) {
  env.PAYLOAD_ENCRYPTION_KEYS_FILE = join(dataDir, 'payload-keys.json');
  once(env.PAYLOAD_ENCRYPTION_KEYS_FILE, 'a payload encryption key', () =>
    JSON.stringify({ current: 'dev-1', keys: { 'dev-1': mintPayloadKey() } }, null, 2),
  );
}
env.CODEC_CORS_ORIGINS ??= `http://localhost:${uiPort},http://127.0.0.1:${uiPort}`;
// No load balancer to leave on a laptop: on stop (this launcher sends SIGTERM) the API closes at once.
env.SHUTDOWN_NOT_READY_SECONDS ??= '0';
const apiHost = env.HOST ?? '127.0.0.1';
const apiPort = env.PORT ?? '3000';
const codecEndpoint = `http://${apiHost}:${apiPort}/codec`;

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
      const namespace = env.TEMPORAL_NAMESPACE ?? 'default';
      await connection.workflowService.describeNamespace({ namespace });
      // A database from an earlier version lacks the attributes added since (Owner): add them.
      const added = externalServer ? [] : await addMissingSearchAttributes(connection, namespace);
      if (added.length > 0)
        console.log(`[dev] registered search attributes ${added.join(', ')} on the existing database`);
      await connection.close();
      return;
    } catch (err) {
      if (Date.now() > deadline)
        throw new Error(`Temporal at ${address} did not become ready: ${(err as Error).message}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

// A second stack on this machine must move every port, not only the API's: say which are taken and
// by which variables, before starting anything.
const busy = await busyPorts('127.0.0.1', stackPorts(env));
if (busy.length > 0) {
  console.error(busyPortsMessage(busy));
  process.exit(1);
}

let address = externalServer;
if (!address) {
  const cli = env.TEMPORAL_CLI_PATH;
  if (!cli) throw new Error('TEMPORAL_CLI_PATH is not set; start through scripts/dev.sh');
  const port = Number(env.TEMPORAL_PORT ?? 7233);
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
    // The Web UI decrypts payloads in the browser through the API.
    '--ui-codec-endpoint',
    codecEndpoint,
    '--db-filename',
    join(dataDir, 'temporal.db'),
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

const workerUrl = `http://${env.WORKER_HOST ?? '127.0.0.1'}:${env.WORKER_PORT ?? '3001'}`;
const ready = await Promise.all([
  waitForReady(`http://${apiHost}:${apiPort}/readyz`, () => stopping),
  waitForReady(`${workerUrl}/readyz`, () => stopping),
]);
// A child that exited first (a port taken, a bad setting) stops everything: then nothing is up.
if (ready.every(Boolean)) printUp();

function printUp(): void {
  console.log(`
[dev] Delayed task service is up:
  HTTP API        http://${apiHost}:${apiPort}   (docs: /docs, health: /healthz, /readyz, metrics: /metrics)
  Console         ${env.CONSOLE_ENABLED === 'true' ? `http://${apiHost}:${apiPort}/console` : 'off (CONSOLE_ENABLED=false)'}
  Worker          ${workerUrl}   (health: /healthz, /readyz, metrics: /metrics)
  Temporal        ${address}${externalServer ? ' (external server)' : `   (data: ${dataDir}/temporal.db)\n  Temporal Web UI http://127.0.0.1:${uiPort}   (decodes through ${codecEndpoint})`}
  Payloads        encrypted at rest (${env.PAYLOAD_ENCRYPTION_KEYS_FILE ?? 'PAYLOAD_ENCRYPTION_KEYS'}); CLI: --codec-endpoint ${codecEndpoint}
  Callbacks       signed (Standard Webhooks; secrets: ${env.WEBHOOK_SECRETS_FILE ?? 'WEBHOOK_SECRET'})
  Press Ctrl-C to stop.
`);
}
