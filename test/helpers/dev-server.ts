/**
 * The real Temporal dev server of a test run or a recording: TEMPORAL_TEST_ADDRESS names a running
 * one; otherwise the `temporal` CLI that scripts/temporal-cli.sh finds or builds (TEMPORAL_CLI_PATH,
 * PATH, .tools/), else the SDK's own download on a connected machine.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { ALL_SEARCH_ATTRIBUTES } from '../../src/shared/constants.js';
import { dynamicConfigArgs, sqlitePragmaArgs } from '../../src/temporal/dev-server.js';
import { bundleTaskWorkflows } from '../../src/worker/workers.js';

export interface TestServer {
  address: string;
  /** The `temporal` CLI an operator would use against it. */
  cliPath: string;
  stop(): Promise<void>;
}

function findCli(): string | undefined {
  try {
    return execFileSync('scripts/temporal-cli.sh', {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }).trim();
  } catch {
    return undefined;
  }
}

/**
 * Starts a dev server of its own (never TEMPORAL_TEST_ADDRESS's), configured as the service needs,
 * but for the dynamic config keys `overrides` names.
 */
export async function startDevServer(
  cli: string | undefined = findCli(),
  overrides: Readonly<Record<string, string | number | boolean>> = {},
): Promise<TestServer> {
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: cli ? { type: 'existing-path', path: cli } : { type: 'cached-download' },
      ip: '127.0.0.1',
      searchAttributes: ALL_SEARCH_ATTRIBUTES,
      extraArgs: [...dynamicConfigArgs(overrides), ...sqlitePragmaArgs(), '--log-level', 'error'],
    },
  });
  return { address: env.address, cliPath: cli ?? 'temporal', stop: () => env.teardown() };
}

/** The server of a test run: TEMPORAL_TEST_ADDRESS's when set, else one of its own. */
export async function startTestServer(): Promise<TestServer> {
  const cli = findCli();
  const running = process.env.TEMPORAL_TEST_ADDRESS;
  if (running) return { address: running, cliPath: cli ?? 'temporal', stop: async () => undefined };
  return startDevServer(cli);
}

/** Bundles the workflow code into a temporary file that workers load by path. */
export async function writeWorkflowBundle(): Promise<string> {
  const bundle = await bundleTaskWorkflows();
  const bundlePath = join(mkdtempSync(join(tmpdir(), 'delayed-task-bundle-')), 'workflows.js');
  writeFileSync(bundlePath, bundle.code);
  return bundlePath;
}
