import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Worker threads and the Temporal native bridge do not mix: every test file runs in its own process.
    pool: 'forks',
    maxWorkers: 2,
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts', 'test/deploy/**/*.test.ts', 'test/replay/**/*.test.ts'],
          pool: 'forks',
          // Compiling every schema of the OpenAPI document took 7.5 s with the integration tests alongside.
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts', 'test/workflows/**/*.test.ts'],
          pool: 'forks',
          globalSetup: ['test/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
