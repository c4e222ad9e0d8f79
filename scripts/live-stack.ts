/**
 * The live stack the SDKs' scenario tests run against: an in-memory Temporal dev server on a free
 * loopback port, then the worker and the API as real processes from this checkout, with loopback
 * callbacks allowed, a generated webhook secret and a minted API key (each once its feature exists
 * in this checkout). Writes `DTS_URL`, `DTS_API_KEY`, `DTS_WEBHOOK_SECRET` to the env file named by
 * the first argument when everything answers `/readyz`, prints `live stack ready`, and stops it all
 * on SIGTERM/SIGINT (or when one process dies). Run through `scripts/live-stack.sh <env-file>`.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dynamicConfigArgs, searchAttributeArgs } from '../src/temporal/dev-server.js';
import { freePort } from '../test/helpers/processes.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const envFile = process.argv[2];
const cli = process.env.TEMPORAL_CLI_PATH;
if (!envFile || !cli) {
  console.error('usage: TEMPORAL_CLI_PATH=... tsx scripts/live-stack.ts <env-file>');
  process.exit(2);
}

// Features arrive from other branches; the stack turns each on once this checkout has it.
const configSource = readFileSync(join(root, 'src/config.ts'), 'utf8');
const hasSigning = configSource.includes("'WEBHOOK_SECRET'");
const hasAuth = configSource.includes("'API_KEYS_FILE'");

const children: ChildProcess[] = [];
const scratch = mkdtempSync(join(tmpdir(), 'dts-live-'));
let stopping = false;

function start(
  name: string,
  command: string,
  args: string[],
  env: Record<string, string> = {},
): ChildProcess {
  const child = spawn(command, args, {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  child.on('exit', (code, signal) => {
    if (!stopping) {
      console.error(`[live-stack] ${name} exited (${signal ?? code}); stopping everything`);
      void stop(1);
    }
  });
  children.push(child);
  return child;
}

async function stop(exitCode = 0): Promise<void> {
  if (stopping) return;
  stopping = true;
  for (const child of [...children].reverse()) {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    }
  }
  rmSync(scratch, { recursive: true, force: true });
  process.exit(exitCode);
}
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());

async function waitForReady(url: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!stopping) {
    const ok = await fetch(url)
      .then((res) => res.ok)
      .catch(() => false);
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`${url} did not become ready in ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

function mintApiKey(keysFile: string): string {
  const output = execFileSync(
    process.execPath,
    [
      '--import',
      'tsx',
      'src/cli/keys.ts',
      'create',
      '--file',
      keysFile,
      // Owner `default`: the owner WEBHOOK_SECRET signs for.
      '--owner',
      'default',
      '--scopes',
      'tasks:write,tasks:read',
      '--description',
      'SDK live tests',
    ],
    { cwd: root, encoding: 'utf8', env: { ...process.env, API_KEYS_FILE: keysFile } },
  );
  const key = /^dts_\S+$/m.exec(output)?.[0];
  if (!key) throw new Error(`no key in the output of keys create:\n${output}`);
  return key;
}

try {
  const [temporalPort, apiPort, workerPort, sdkMetricsPort] = await Promise.all([
    freePort(),
    freePort(),
    freePort(),
    freePort(),
  ]);
  const temporalAddress = `127.0.0.1:${temporalPort}`;
  start('temporal dev server', cli, [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(temporalPort),
    '--headless',
    '--log-level',
    'error',
    ...searchAttributeArgs(),
    ...dynamicConfigArgs(),
  ]);

  const webhookSecret = hasSigning ? `whsec_${randomBytes(32).toString('base64')}` : '';
  const keysFile = join(scratch, 'api-keys.json');
  const apiKey = hasAuth ? mintApiKey(keysFile) : '';
  const env: Record<string, string> = {
    TEMPORAL_ADDRESS: temporalAddress,
    HOST: '127.0.0.1',
    PORT: String(apiPort),
    WORKER_HOST: '127.0.0.1',
    WORKER_PORT: String(workerPort),
    WORKER_SDK_METRICS_PORT: String(sdkMetricsPort),
    LOG_LEVEL: 'warn',
    CALLBACK_ALLOW_CIDRS: '127.0.0.0/8,::1/128',
    ...(hasSigning ? { WEBHOOK_SECRET: webhookSecret } : {}),
    ...(hasAuth ? { API_KEYS_FILE: keysFile } : {}),
  };
  // The worker and the API connect at boot: the server answers first.
  await waitForTemporal(temporalAddress);
  start('worker', process.execPath, ['--import', 'tsx', 'src/worker/main.ts'], env);
  start('api', process.execPath, ['--import', 'tsx', 'src/api/main.ts'], env);
  const url = `http://127.0.0.1:${apiPort}`;
  await Promise.all([waitForReady(`${url}/readyz`), waitForReady(`http://127.0.0.1:${workerPort}/readyz`)]);

  writeFileSync(envFile, `DTS_URL=${url}\nDTS_API_KEY=${apiKey}\nDTS_WEBHOOK_SECRET=${webhookSecret}\n`, {
    mode: 0o600,
  });
  console.log(`[live-stack] live stack ready: API ${url}, Temporal ${temporalAddress}`);
  if (!hasSigning)
    console.log('[live-stack] note: no callback signing in this checkout; DTS_WEBHOOK_SECRET is empty');
  if (!hasAuth) console.log('[live-stack] note: no authentication in this checkout; DTS_API_KEY is empty');
} catch (err) {
  console.error(`[live-stack] ${(err as Error).message}`);
  await stop(1);
}

async function waitForTemporal(address: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      execFileSync(
        cli as string,
        ['operator', 'namespace', 'describe', '-n', 'default', '--address', address],
        {
          stdio: 'ignore',
          timeout: 10_000,
        },
      );
      return;
    } catch (err) {
      if (stopping) return;
      if (Date.now() > deadline)
        throw new Error(`Temporal at ${address} did not become ready: ${String(err)}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}
