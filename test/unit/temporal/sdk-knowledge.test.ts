/**
 * The SDK knowledge of src/temporal/sdk-knowledge.ts holds for one SDK version: an upgrade fails
 * here first, so the marker name, the error texts and the internal decoder are looked at again.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { PINNED_SDK_VERSION } from '../../../src/temporal/sdk-knowledge.js';

const require = createRequire(import.meta.url);

describe('SDK knowledge', () => {
  it.each(['@temporalio/client', '@temporalio/common', '@temporalio/worker', '@temporalio/workflow'])(
    '%s is the version the knowledge was checked against',
    (name) => {
      const manifest = require.resolve(`${name}/package.json`);
      const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
      expect(version).toBe(PINNED_SDK_VERSION);
    },
  );
});
