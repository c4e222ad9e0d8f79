/**
 * Payload encryption at rest: a Temporal payload codec with AES-256-GCM, a random 12-byte nonce per
 * payload, and the id of the key in the payload's metadata, so keys rotate: new payloads use the
 * current key, older ones decrypt with the key they name. Used by the API's client, the worker and
 * the codec endpoint the Web UI and the CLI decode through.
 *
 * An encrypted payload: metadata `encoding: binary/encrypted`, `encryption-key-id: <id>`; data
 * `nonce (12) | ciphertext | tag (16)` of the original Payload message; the key id is bound in as
 * additional authenticated data.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Payload, PayloadCodec } from '@temporalio/common';
import proto from '@temporalio/proto';

const ProtoPayload = proto.temporal.api.common.v1.Payload;

export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const KEY_ID_METADATA = 'encryption-key-id';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
export const KEY_BYTES = 32;

export class PayloadKeyError extends Error {
  override name = 'PayloadKeyError';
}

/** The keys a process holds and the one new payloads are encrypted with. */
export interface PayloadKeyring {
  currentKeyId: string;
  keys: ReadonlyMap<string, Buffer>;
}

/** A keys file: `{"current": "<id>", "keys": {"<id>": "<base64 of 32 bytes>"}}`. */
export interface PayloadKeysFile {
  current: string;
  keys: Record<string, string>;
}

export interface PayloadKeyConfig {
  keys: Readonly<Record<string, string>>;
  currentKeyId: string | undefined;
  keysFile: string | undefined;
}

/**
 * The keyring from configuration: inline keys and a keys file, merged; undefined when neither gives
 * a key (encryption off). `PAYLOAD_ENCRYPTION_CURRENT_KEY_ID` overrides the file's `current`.
 */
export function loadPayloadKeyring(config: PayloadKeyConfig): PayloadKeyring | undefined {
  const keys = new Map<string, Buffer>();
  let current = config.currentKeyId;
  if (config.keysFile) {
    let file: PayloadKeysFile;
    try {
      file = JSON.parse(readFileSync(config.keysFile, 'utf8')) as PayloadKeysFile;
    } catch (err) {
      throw new PayloadKeyError(
        `cannot read payload keys from ${config.keysFile}: ${(err as Error).message}`,
      );
    }
    for (const [id, value] of Object.entries(file.keys ?? {})) keys.set(id, keyBytes(id, value));
    current ??= file.current;
  }
  for (const [id, value] of Object.entries(config.keys)) keys.set(id, keyBytes(id, value));
  if (keys.size === 0) return undefined;
  if (!current || !keys.has(current)) {
    throw new PayloadKeyError(
      `the current payload key ${JSON.stringify(current)} is not among the configured keys (${[...keys.keys()].join(', ')})`,
    );
  }
  return { currentKeyId: current, keys };
}

function keyBytes(id: string, base64: string): Buffer {
  const key = Buffer.from(base64, 'base64');
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(id) || key.length !== KEY_BYTES) {
    throw new PayloadKeyError(
      `payload key ${JSON.stringify(id)} is not ${KEY_BYTES} bytes of base64 under a short id`,
    );
  }
  return key;
}

/** A new key for a keys file or PAYLOAD_ENCRYPTION_KEYS, base64. */
export function mintPayloadKey(): string {
  return randomBytes(KEY_BYTES).toString('base64');
}

export class AesGcmPayloadCodec implements PayloadCodec {
  constructor(private readonly keyring: PayloadKeyring) {}

  async encode(payloads: Payload[]): Promise<Payload[]> {
    const keyId = this.keyring.currentKeyId;
    const key = this.keyring.keys.get(keyId)!;
    return payloads.map((payload) => {
      const nonce = randomBytes(NONCE_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, nonce);
      cipher.setAAD(Buffer.from(keyId));
      const plain = ProtoPayload.encode(payload).finish();
      const data = Buffer.concat([nonce, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
      return {
        metadata: {
          encoding: Buffer.from(ENCRYPTED_ENCODING),
          [KEY_ID_METADATA]: Buffer.from(keyId),
        },
        data,
      };
    });
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      const encoding = payload.metadata?.encoding;
      // Written before encryption was turned on, or by a client without it: left as it is.
      if (!encoding || Buffer.from(encoding).toString() !== ENCRYPTED_ENCODING) return payload;
      const rawId = payload.metadata?.[KEY_ID_METADATA];
      if (!rawId) throw new PayloadKeyError(`an encrypted payload has no ${KEY_ID_METADATA} in its metadata`);
      const keyId = Buffer.from(rawId).toString();
      const key = this.keyring.keys.get(keyId);
      if (!key) {
        throw new PayloadKeyError(
          `payload is encrypted with key ${JSON.stringify(keyId)}, which this process does not have: add it to PAYLOAD_ENCRYPTION_KEYS or the keys file`,
        );
      }
      const data = Buffer.from(payload.data ?? []);
      if (data.length < NONCE_BYTES + TAG_BYTES)
        throw new PayloadKeyError('an encrypted payload is truncated');
      const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, NONCE_BYTES));
      decipher.setAAD(Buffer.from(keyId));
      decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
      let plain: Buffer;
      try {
        plain = Buffer.concat([
          decipher.update(data.subarray(NONCE_BYTES, data.length - TAG_BYTES)),
          decipher.final(),
        ]);
      } catch {
        throw new PayloadKeyError(
          `payload does not decrypt with key ${JSON.stringify(keyId)}: wrong key or altered data`,
        );
      }
      return ProtoPayload.decode(plain) as Payload;
    });
  }
}
