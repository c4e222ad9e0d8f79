/**
 * The chart mounts the API keys and webhook signing secrets as Secret volumes, whose files the
 * kubelet replaces by swapping a `..data` symlink to a new directory (the old file is never
 * written). docs/operating.md says a changed Secret reaches the running processes without a
 * restart: here is that swap, done as the kubelet's atomic writer does it.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  renameSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { KeyStore } from '../../src/auth/key-store.js';
import { hashKey, mintKey } from '../../src/auth/keys.js';
import { createLogger } from '../../src/observability/logger.js';
import { WebhookSecrets } from '../../src/security/webhook-secrets.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A Secret volume: `<name>` -> `..data/<name>`, `..data` -> `..<version>/`, swapped by rename. */
function secretVolume() {
  const dir = mkdtempSync(join(tmpdir(), 'secret-volume-'));
  dirs.push(dir);
  let version = 0;
  return {
    path: (name: string) => join(dir, name),
    write(files: Record<string, string>) {
      version += 1;
      const payload = join(dir, `..2026_12_04_00_00_00.${String(version).padStart(9, '0')}`);
      mkdirSync(payload);
      for (const [name, text] of Object.entries(files)) {
        writeFileSync(join(payload, name), text);
        // Versions of a Secret are seconds apart at least; written here within one clock tick, two
        // files could share a modification time (the file system's clock moves in ticks of ms).
        const mtime = new Date(Date.UTC(2026, 11, 4, 0, 0, version));
        utimesSync(join(payload, name), mtime, mtime);
      }
      symlinkSync(payload, join(dir, '..data_tmp'));
      renameSync(join(dir, '..data_tmp'), join(dir, '..data'));
      for (const name of Object.keys(files)) {
        if (!existsSync(join(dir, name))) symlinkSync(join('..data', name), join(dir, name));
      }
    },
  };
}

async function until(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function keysFile(...keys: { keyId: string; key: string }[]): string {
  return JSON.stringify({
    keys: keys.map(({ keyId, key }) => ({
      id: keyId,
      owner: 'default',
      hash: hashKey(key),
      scopes: ['admin'],
    })),
  });
}

describe('a Secret volume swapped by the kubelet', () => {
  it('reaches the API keys in force without a restart', async () => {
    const volume = secretVolume();
    const first = mintKey();
    const second = mintKey();
    volume.write({ 'api-keys.json': keysFile(first) });
    const store = new KeyStore(volume.path('api-keys.json'), createLogger('silent', 'test'));
    try {
      store.watch(20);
      expect(store.authenticate(`Bearer ${first.key}`).ok).toBe(true);
      expect(store.authenticate(`Bearer ${second.key}`).ok).toBe(false);

      // The watcher takes its first look (what later looks compare with) some time after watch():
      // a swap before that would be its starting point. The kubelet syncs again later; so does this.
      let polls = 0;
      await until(() => {
        if (polls++ % 25 === 0) volume.write({ 'api-keys.json': keysFile(second) });
        return store.authenticate(`Bearer ${second.key}`).ok;
      });
      expect(store.authenticate(`Bearer ${first.key}`).ok).toBe(false);
    } finally {
      store.close();
    }
  });

  it('reaches the webhook signing secrets without a restart', async () => {
    const volume = secretVolume();
    const file = (secret: string) => JSON.stringify({ owners: { orders: [secret] } });
    const before = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
    const after = `whsec_${Buffer.alloc(32, 2).toString('base64')}`;
    volume.write({ 'webhook-secrets.json': file(before) });
    const secrets = new WebhookSecrets({ secretsFile: volume.path('webhook-secrets.json'), recheckMs: 0 });
    expect(secrets.secretsFor('orders')).toEqual([before]);

    volume.write({ 'webhook-secrets.json': file(after) });
    await until(() => secrets.secretsFor('orders')[0] === after);
  });
});
