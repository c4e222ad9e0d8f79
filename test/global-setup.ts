/**
 * One real Temporal dev server for the integration tests (not a mock), torn down at the end.
 * The workflow code is bundled once here for every test file.
 */
import type { TestProject } from 'vitest/node';
import { startTestServer, writeWorkflowBundle } from './helpers/dev-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
    temporalCliPath: string;
    workflowBundlePath: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startTestServer();
  project.provide('temporalAddress', server.address);
  project.provide('temporalCliPath', server.cliPath);
  project.provide('workflowBundlePath', await writeWorkflowBundle());
  return () => server.stop();
}
