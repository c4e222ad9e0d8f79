/**
 * The live stack the SDKs' scenario tests run against: an in-memory Temporal dev server on a free
 * loopback port, then the worker and the API as real processes from this checkout, with loopback
 * callbacks allowed, a generated webhook secret and a minted API key. Before it says it is ready it
 * asks the running stack that authentication and signing are really on (a request without a key is
 * refused; a task's callback arrives signed with the secret); under CI a stack without either fails.
 * Writes `DTS_URL`, `DTS_API_KEY`, `DTS_WEBHOOK_SECRET` to the env file named by the first argument,
 * prints `live stack ready`, and stops it all on SIGTERM/SIGINT (or when one process dies). Run
 * through `scripts/live-stack.sh <env-file>`.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Webhook } from 'standardwebhooks';
import { dynamicConfigArgs, searchAttributeArgs } from '../src/temporal/dev-server.js';
import { freePort } from '../test/helpers/processes.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const envFile = process.argv[2];
const cli = process.env.TEMPORAL_CLI_PATH;
if (!envFile || !cli) {
  console.error('usage: TEMPORAL_CLI_PATH=... tsx scripts/live-stack.ts <env-file>');
  process.exit(2);
}

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
      'tasks:write,tasks:read,tasks:lease,schedules:write,schedules:read',
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

  const webhookSecret = `whsec_${randomBytes(32).toString('base64')}`;
  const keysFile = join(scratch, 'api-keys.json');
  const apiKey = mintApiKey(keysFile);
  const env: Record<string, string> = {
    TEMPORAL_ADDRESS: temporalAddress,
    HOST: '127.0.0.1',
    PORT: String(apiPort),
    WORKER_HOST: '127.0.0.1',
    WORKER_PORT: String(workerPort),
    WORKER_SDK_METRICS_PORT: String(sdkMetricsPort),
    LOG_LEVEL: 'warn',
    CALLBACK_ALLOW_CIDRS: '127.0.0.0/8,::1/128',
    WEBHOOK_SECRET: webhookSecret,
    API_KEYS_FILE: keysFile,
  };
  // The worker and the API connect at boot: the server answers first.
  await waitForTemporal(temporalAddress);
  start('worker', process.execPath, ['--import', 'tsx', 'src/worker/main.ts'], env);
  start('api', process.execPath, ['--import', 'tsx', 'src/api/main.ts'], env);
  const url = `http://127.0.0.1:${apiPort}`;
  await Promise.all([waitForReady(`${url}/readyz`), waitForReady(`http://127.0.0.1:${workerPort}/readyz`)]);

  const problems = await securityProblems(url, apiKey, webhookSecret);
  if (problems.length > 0) {
    const text = `[live-stack] the stack is not secure: ${problems.join('; ')}`;
    if (process.env.CI) throw new Error(text);
    console.log(`${text} (not CI: going on)`);
  }
  writeFileSync(envFile, `DTS_URL=${url}\nDTS_API_KEY=${apiKey}\nDTS_WEBHOOK_SECRET=${webhookSecret}\n`, {
    mode: 0o600,
  });
  console.log(`[live-stack] live stack ready: API ${url}, Temporal ${temporalAddress}`);
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

/**
 * Asks the running stack, from outside, whether authentication and signing are on: a request
 * without a key must be refused, and a task due now must call back signed with the secret.
 */
async function securityProblems(url: string, apiKey: string, secret: string): Promise<string[]> {
  const problems: string[] = [];
  const anonymous = await fetch(`${url}/api/v1/tasks`);
  if (anonymous.status !== 401) problems.push(`a request without a key got ${anonymous.status}, not 401`);

  let arrived: (callback: { body: string; headers: Record<string, string> }) => void = () => undefined;
  const received = new Promise<{ body: string; headers: Record<string, string> }>((resolve) => {
    arrived = resolve;
  });
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      res.end('{}');
      arrived({ body, headers: req.headers as Record<string, string> });
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  try {
    const created = await fetch(`${url}/api/v1/tasks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        taskType: 'live-stack.check',
        payload: {},
        delaySeconds: 0,
        callbackUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`,
      }),
    });
    if (created.status !== 201) return [...problems, `the check task was answered ${created.status}`];
    const timeout = new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 30_000).unref());
    const callback = await Promise.race([received, timeout]);
    if (!callback) return [...problems, 'the check task did not call back within 30 s'];
    try {
      new Webhook(secret).verify(callback.body, callback.headers);
    } catch (err) {
      problems.push(`its callback did not verify with the secret (${(err as Error).message})`);
    }
  } finally {
    receiver.close();
  }
  return problems;
}
