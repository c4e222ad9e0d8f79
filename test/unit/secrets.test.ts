/**
 * Pure pieces of the security work: the payload codec's failure modes, the key configuration, the
 * policy file's header secrets, log redaction of URLs and signatures against the spec's example.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/environment.js';
import { redactUrl } from '../../src/observability/logger.js';
import { Policies } from '../../src/task-types/policies.js';
import {
  AesGcmPayloadCodec,
  loadPayloadKeyring,
  mintPayloadKey,
  type PayloadKeyring,
} from '../../src/security/payload-codec.js';
import { HeaderSecrets } from '../../src/security/header-secrets.js';
import { ownersWithoutSigningSecret, WebhookSecrets } from '../../src/security/webhook-secrets.js';
import { parseWorkflowId } from '../../src/shared/owner.js';
import { signWebhook, webhookId } from '../../src/security/webhook-signature.js';

const ring = (current: string, ...ids: string[]): PayloadKeyring => ({
  currentKeyId: current,
  keys: new Map(ids.map((id) => [id, Buffer.from(KEYS[id]!, 'base64')])),
});
const KEYS: Record<string, string> = { a: mintPayloadKey(), b: mintPayloadKey() };
const plain = { metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from('{"x":"secret"}') };

describe('AesGcmPayloadCodec', () => {
  it('round-trips, with a fresh nonce each time', async () => {
    const codec = new AesGcmPayloadCodec(ring('a', 'a'));
    const [one, two] = await codec.encode([plain, plain]);
    expect(Buffer.from(one!.data!).equals(Buffer.from(two!.data!))).toBe(false);
    expect(Buffer.from(one!.data!).includes(Buffer.from('secret'))).toBe(false);
    const [back] = await codec.decode([one!]);
    expect(Buffer.from(back!.data!).toString()).toBe('{"x":"secret"}');
  });

  it('decodes old keys after rotation, refuses a key it lacks and altered data', async () => {
    const [old] = await new AesGcmPayloadCodec(ring('a', 'a')).encode([plain]);
    const rotated = new AesGcmPayloadCodec(ring('b', 'a', 'b'));
    expect(Buffer.from((await rotated.decode([old!]))[0]!.data!).toString()).toContain('secret');
    const [fresh] = await rotated.encode([plain]);
    await expect(new AesGcmPayloadCodec(ring('a', 'a')).decode([fresh!])).rejects.toThrow(
      /encrypted with key "b", which this process does not have/,
    );
    const altered = Buffer.from(old!.data!);
    altered[20] = altered[20]! ^ 1;
    await expect(rotated.decode([{ ...old!, data: altered }])).rejects.toThrow(/wrong key or altered data/);
    // A payload relabelled to another key fails too: the key id is authenticated.
    const relabelled = { ...old!, metadata: { ...old!.metadata, 'encryption-key-id': Buffer.from('b') } };
    await expect(rotated.decode([relabelled])).rejects.toThrow(/wrong key or altered data/);
  });

  it('passes unencrypted payloads through (tasks from before encryption)', async () => {
    const [same] = await new AesGcmPayloadCodec(ring('a', 'a')).decode([plain]);
    expect(same).toBe(plain);
  });
});

describe('key configuration', () => {
  it('needs the current key among the keys, and never prints a key', () => {
    expect(() =>
      loadConfig({ PAYLOAD_ENCRYPTION_KEYS: `a:${KEYS.a}`, PAYLOAD_ENCRYPTION_CURRENT_KEY_ID: 'z' }),
    ).toThrow(/PAYLOAD_ENCRYPTION_CURRENT_KEY_ID must name one of the keys/);
    // Thrown, or the test fails: the assertions below must not sit in a catch that never runs.
    const refused = (() => {
      try {
        loadConfig({ PAYLOAD_ENCRYPTION_KEYS: 'a:c2hvcnQ=' });
      } catch (err) {
        return err;
      }
      return undefined;
    })();
    expect(refused).toBeInstanceOf(ConfigError);
    expect((refused as Error).message).not.toContain('c2hvcnQ=');
    expect(loadPayloadKeyring({ keys: {}, currentKeyId: undefined, keysFile: undefined })).toBeUndefined();
    expect(
      loadPayloadKeyring({ keys: { a: KEYS.a! }, currentKeyId: 'a', keysFile: undefined })?.currentKeyId,
    ).toBe('a');
  });
});

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

describe('signatures and ids', () => {
  it("match the Standard Webhooks specification's example", () => {
    // The spec's reference libraries share this vector.
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const body = '{"test": 2432232314}';
    expect(signWebhook([secret], 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, body)).toBe(
      'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    );
  });

  it('derive a spec-valid webhook-id and the owner from the workflow id', () => {
    expect(webhookId('order.10023:close')).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(webhookId('a')).toBe(webhookId('a'));
    expect(webhookId('orders/a')).not.toBe(webhookId('a'));
    expect(parseWorkflowId('order-1').owner).toBe('default');
    expect(parseWorkflowId('orders/order-1').owner).toBe('orders');
  });
});

describe('WebhookSecrets', () => {
  it("never signs an owner without secrets of its own with the default owner's", () => {
    const secrets = new WebhookSecrets({ defaultSecrets: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'] });
    expect(secrets.secretsFor('default')).toEqual(['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw']);
    expect(secrets.secretsFor('orders')).toEqual([]);
    expect(new WebhookSecrets().secretsFor('orders')).toEqual([]);
  });

  it('names the owners whose callbacks would be held (the API warns at boot)', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'secrets-')), 'secrets.json');
    writeFileSync(file, JSON.stringify({ owners: { orders: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'] } }));
    const secrets = new WebhookSecrets({
      defaultSecrets: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
      secretsFile: file,
    });
    expect(ownersWithoutSigningSecret(['orders', 'default', 'billing', 'billing', 'ads'], secrets)).toEqual([
      'ads',
      'billing',
    ]);
  });

  it("never signs with another owner's secrets from the file either", () => {
    const file = join(mkdtempSync(join(tmpdir(), 'secrets-')), 'secrets.json');
    writeFileSync(file, JSON.stringify({ owners: { default: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'] } }));
    const secrets = new WebhookSecrets({ secretsFile: file });
    expect(secrets.secretsFor('default')).toEqual(['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw']);
    expect(secrets.secretsFor('billing')).toEqual([]);
  });
});

describe('redactUrl', () => {
  it.each([
    ['http://x.test/a?token=s', 'http://x.test/a?[redacted]'],
    ['https://u:p@x.test/a', 'https://[redacted]@x.test/a'],
    ['http://x.test/a', 'http://x.test/a'],
    ['/path?q=1', '/path?[redacted]'],
  ])('%s → %s', (input, expected) => expect(redactUrl(input)).toBe(expected));
});
