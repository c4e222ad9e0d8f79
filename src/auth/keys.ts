/**
 * API keys: `dts_<keyId>_<secret>`, where keyId is 12 base62 characters and the secret 43 base62
 * characters of 256 random bits followed by a 6-character base62 CRC32 of everything before it, so
 * secret scanners (and this service) can tell a real key from a typo without a lookup. Only a
 * SHA-256 of the whole key is stored (enough for 256 random bits); comparison is constant-time.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import Type, { type Static } from 'typebox';
import { OWNER_PATTERN } from '../shared/owner.js';
import { createAjv, toFieldProblems } from '../validation/json-schema.js';
import { SCOPES } from './principal.js';

export const KEY_PREFIX = 'dts';
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const KEY_ID_LENGTH = 12;
const RANDOM_LENGTH = 43; // 62^43 > 2^256
const CHECKSUM_LENGTH = 6; // 62^6 > 2^32
const KEY_PATTERN = new RegExp(
  `^${KEY_PREFIX}_([0-9A-Za-z]{${KEY_ID_LENGTH}})_([0-9A-Za-z]{${RANDOM_LENGTH}})([0-9A-Za-z]{${CHECKSUM_LENGTH}})$`,
);
export const KEY_ID_PATTERN = `^[0-9A-Za-z]{${KEY_ID_LENGTH}}$`;
const HASH_PREFIX = 'sha256:';

function base62(value: bigint, length: number): string {
  let text = '';
  for (let rest = value; text.length < length; rest /= 62n) text = ALPHABET[Number(rest % 62n)] + text;
  return text;
}

function randomBase62(bytes: number, length: number): string {
  return base62(BigInt(`0x${randomBytes(bytes).toString('hex')}`) % 62n ** BigInt(length), length);
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

/** CRC-32 (IEEE), as zlib and the secret scanners' checksummed tokens use it. */
export function crc32(text: string): number {
  let crc = 0xffffffff;
  for (const byte of Buffer.from(text, 'utf8')) crc = CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function checksum(body: string): string {
  return base62(BigInt(crc32(body)), CHECKSUM_LENGTH);
}

/** A key with a valid checksum from its parts (the random part: 43 base62 characters). */
export function composeKey(keyId: string, random: string): string {
  const body = `${KEY_PREFIX}_${keyId}_${random}`;
  return `${body}${checksum(body)}`;
}

/** A new key: its id and the full key, which is shown once and never stored. */
export function mintKey(): { keyId: string; key: string } {
  const keyId = randomBase62(9, KEY_ID_LENGTH);
  const random = base62(BigInt(`0x${randomBytes(32).toString('hex')}`), RANDOM_LENGTH);
  return { keyId, key: composeKey(keyId, random) };
}

export { bearerToken } from '../security/bearer-token.js';

/** The key id of a well-formed key with a valid checksum; undefined for anything else. */
export function parseKey(key: string): { keyId: string } | undefined {
  const match = KEY_PATTERN.exec(key);
  if (!match) return undefined;
  const [, keyId, random, sum] = match as unknown as [string, string, string, string];
  if (checksum(`${KEY_PREFIX}_${keyId}_${random}`) !== sum) return undefined;
  return { keyId };
}

/** What the keys file stores of a key: `sha256:<hex>` of the whole key. */
export function hashKey(key: string): string {
  return `${HASH_PREFIX}${createHash('sha256').update(key, 'utf8').digest('hex')}`;
}

/** Constant-time comparison of a presented key with a stored hash. */
export function keyMatches(key: string, storedHash: string): boolean {
  const presented = createHash('sha256').update(key, 'utf8').digest();
  const stored = Buffer.from(storedHash.slice(HASH_PREFIX.length), 'hex');
  return stored.length === presented.length && timingSafeEqual(presented, stored);
}

export const TASK_TYPE_RULE_PATTERN = '^[a-z0-9][a-z0-9._-]{0,63}\\*?$';

export const KeyEntrySchema = Type.Object(
  {
    id: Type.String({ pattern: KEY_ID_PATTERN, description: 'The keyId part of the key' }),
    owner: Type.String({ pattern: OWNER_PATTERN, description: 'Team or service the key acts for' }),
    hash: Type.String({ pattern: '^sha256:[0-9a-f]{64}$', description: 'SHA-256 of the whole key' }),
    scopes: Type.Array(Type.Enum(SCOPES), {
      minItems: 1,
      uniqueItems: true,
    }),
    allowedTaskTypes: Type.Optional(
      Type.Array(Type.String({ pattern: TASK_TYPE_RULE_PATTERN }), {
        minItems: 1,
        description: 'Exact task types or prefixes ending in *; absent: any',
      }),
    ),
    allowedCallbackHosts: Type.Optional(
      Type.Array(Type.String({ pattern: '^(\\*\\.)?[A-Za-z0-9.-]+$' }), {
        minItems: 1,
        description: 'Exact host names or *.domain; absent: any',
      }),
    ),
    requestsPerMinute: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
    expiresAt: Type.Optional(Type.String({ format: 'date-time' })),
    disabled: Type.Optional(Type.Boolean()),
    sessionsNotBefore: Type.Optional(
      Type.String({
        format: 'date-time',
        description:
          'Console sessions of this key issued before this time are refused (set by disable and enable)',
      }),
    ),
    createdAt: Type.Optional(Type.String({ format: 'date-time' })),
    description: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: false },
);
export type KeyEntry = Static<typeof KeyEntrySchema>;

export const KeysFileSchema = Type.Object(
  { keys: Type.Array(KeyEntrySchema) },
  { additionalProperties: false },
);
export type KeysFile = Static<typeof KeysFileSchema>;

export class KeysFileError extends Error {
  override name = 'KeysFileError';
}

const validateFile = createAjv().compile(KeysFileSchema);

/** Checks a parsed keys file; throws KeysFileError naming every bad field (`keys.1.scopes.0 ...`). */
export function validateKeysFile(document: unknown): KeysFile {
  const problems = toFieldProblems(validateFile(document) ? [] : validateFile.errors).map(
    (p) => `${p.field} ${p.reason}`,
  );
  if (problems.length === 0) {
    const seen = new Map<string, number>();
    (document as KeysFile).keys.forEach((entry, i) => {
      const first = seen.get(entry.id);
      if (first !== undefined) problems.push(`keys.${i}.id duplicates keys.${first}.id`);
      else seen.set(entry.id, i);
    });
  }
  if (problems.length > 0) throw new KeysFileError(`invalid API keys file: ${problems.join('; ')}`);
  return document as KeysFile;
}

/** An empty keys file, for the CLI's first key. */
export function emptyKeysFile(): KeysFile {
  return { keys: [] };
}
