/** `npm run webhook-secrets`: mints, rotates and lists an owner's secrets in the file the worker reads. */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { WebhookSecrets } from '../../../src/security/webhook-secrets.js';
import { isWebhookSecret } from '../../../src/security/webhook-signature.js';

const run = promisify(execFile);
const cli = (...args: string[]) =>
  run(process.execPath, ['--import', 'tsx', 'src/cli/webhook-secrets.ts', ...args], {
    env: { PATH: process.env.PATH },
  });

describe('webhook-secrets command', () => {
  it('creates a current secret before the old one, retires the old one, lists fingerprints only', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'whsec-')), 'secrets.json');
    const first = (await cli('create', '--owner', 'orders', '--file', file)).stdout.trim();
    const second = (await cli('create', '--owner', 'orders', '--file', file)).stdout.trim();
    expect(isWebhookSecret(first) && isWebhookSecret(second)).toBe(true);
    expect(statSync(file).mode & 0o077).toBe(0);
    const secrets = new WebhookSecrets({ secretsFile: file });
    expect(secrets.secretsFor('orders')).toEqual([second, first]);
    expect(secrets.secretsFor('default')).toEqual([]);

    const listed = (await cli('list', '--file', file)).stdout;
    expect(listed).toMatch(/^orders\t[0-9a-f]{12} [0-9a-f]{12}\n$/);
    expect(listed).not.toContain(first.slice(6, 20));

    await cli('retire', '--owner', 'orders', '--keep', '1', '--file', file);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ owners: { orders: [second] } });
    await expect(cli('create', '--file', file)).rejects.toThrow(/needs --owner/);
    // Five real processes (tsx compiles at start): seconds each on a loaded machine.
  }, 60_000);
});
