/**
 * One real Temporal dev server for the integration tests (not a mock), torn down at the end.
 *
 * The server: TEMPORAL_TEST_ADDRESS names a running one; otherwise the `temporal` CLI that
 * scripts/temporal-cli.sh finds or builds (TEMPORAL_CLI_PATH, PATH, .tools/), else the SDK's own
 * download on a connected machine. The workflow code is bundled once here for every test file.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import type { TestProject } from 'vitest/node';
import { ALL_SEARCH_ATTRIBUTES } from '../src/shared/constants.js';
import { dynamicConfigArgs, sqlitePragmaArgs } from '../src/temporal/dev-server.js';
import { bundleTaskWorkflows } from '../src/worker/workers.js';

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
    temporalCliPath: string;
    workflowBundlePath: string;
  }
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

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const cli = findCli();
  let env: TestWorkflowEnvironment | undefined;
  let address = process.env.TEMPORAL_TEST_ADDRESS;
  if (!address) {
    env = await TestWorkflowEnvironment.createLocal({
      server: {
        executable: cli ? { type: 'existing-path', path: cli } : { type: 'cached-download' },
        ip: '127.0.0.1',
        searchAttributes: ALL_SEARCH_ATTRIBUTES,
        extraArgs: [...dynamicConfigArgs(), ...sqlitePragmaArgs(), '--log-level', 'error'],
      },
    });
    address = env.address;
  }
  const bundle = await bundleTaskWorkflows();
  const dir = mkdtempSync(join(tmpdir(), 'delayed-task-bundle-'));
  const bundlePath = join(dir, 'workflows.js');
  writeFileSync(bundlePath, bundle.code);
  project.provide('temporalAddress', address);
  project.provide('temporalCliPath', cli ?? 'temporal');
  project.provide('workflowBundlePath', bundlePath);
  return async () => {
    await env?.teardown();
  };
}
