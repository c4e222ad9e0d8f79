/**
 * The policy file's header secrets.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Policies } from '../../../src/task-types/policies.js';
import { HeaderSecrets } from '../../../src/security/header-secrets.js';

describe('header secrets in the policy file', () => {
  it('may not replace the headers the callback sets', () => {
    for (const name of ['Webhook-Signature', 'Idempotency-Key', 'X-Task-Id', 'content-type']) {
      expect(() => new Policies({ taskTypes: { a: { headers: { [name]: { env: 'X' } } } } })).toThrow(
        /set by the callback itself/,
      );
    }
    expect(() => new Policies({ taskTypes: { a: { headers: { 'bad name': { env: 'X' } } } } })).toThrow();
  });

  it('name the variable or file when a value is missing, never a value', async () => {
    const secrets = new HeaderSecrets(() => undefined);
    await expect(secrets.resolve({ Authorization: { env: 'SURELY_NOT_SET_12345' } })).rejects.toThrow(
      /SURELY_NOT_SET_12345 is not set/,
    );
    await expect(secrets.resolve({ 'X-Key': { file: '/nonexistent/secret' } })).rejects.toThrow(
      /cannot read \/nonexistent\/secret \(ENOENT\)/,
    );
  });

  it('are read from a file once, and again when the file changes (a rotation needs no restart)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'header-secret-'));
    const file = join(dir, 'token');
    writeFileSync(file, 'first-value\n');
    let now = 1_000_000;
    const secrets = new HeaderSecrets(
      () => undefined,
      () => now,
    );
    const headers = { Authorization: { file } };
    expect(await secrets.resolve(headers)).toEqual({ authorization: 'first-value' });
    // Within the recheck interval the cached value is used, even though the file changed.
    writeFileSync(file, 'second-value-longer\n');
    expect(await secrets.resolve(headers)).toEqual({ authorization: 'first-value' });
    now += 1_001;
    expect(await secrets.resolve(headers)).toEqual({ authorization: 'second-value-longer' });
    rmSync(file);
    now += 1_001;
    await expect(secrets.resolve(headers)).rejects.toThrow(/ENOENT/);
    rmSync(dir, { recursive: true });
  });

  it('read environment variables through the reader they are given', async () => {
    const secrets = new HeaderSecrets((name) => (name === 'PARTNER_TOKEN' ? 'Bearer abc' : undefined));
    expect(await secrets.resolve({ Authorization: { env: 'PARTNER_TOKEN' } })).toEqual({
      authorization: 'Bearer abc',
    });
  });
});
