/**
 * The payload codec's failure modes and its key configuration.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config/environment.js';
import {
  AesGcmPayloadCodec,
  loadPayloadKeyring,
  mintPayloadKey,
  type PayloadKeyring,
} from '../../../src/security/payload-codec.js';

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
