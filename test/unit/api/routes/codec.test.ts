/**
 * Who may call the codec endpoint, which decrypts the payloads of every owner: CODEC_AUTH_TOKEN or an
 * API key with scope `codec` (or `admin`); never a key with task scopes only, never an unknown or
 * disabled key, never an anonymous loopback caller once API keys are on. Asked from the attacker's
 * side: each refused request gets nothing decrypted back. No Temporal needed (the codec calls none).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultPayloadConverter, type Connection } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../../src/api/app.js';
import { ApiMetrics } from '../../../../src/api/metrics.js';
import { TaskService } from '../../../../src/tasks/service.js';
import { KeyStore } from '../../../../src/auth/key-store.js';
import { mintKey } from '../../../../src/auth/keys.js';
import { loadConfig } from '../../../../src/config/environment.js';
import { Policies } from '../../../../src/task-types/policies.js';
import { loadPayloadKeyring, mintPayloadKey } from '../../../../src/security/payload-codec.js';
import { apiConnection } from '../../../../src/temporal/connection.js';
import { createDataConverter } from '../../../../src/temporal/data-converter.js';
import { mintKeys, writeKeysFile, type Minted } from '../../../helpers/harness.js';

const TOKEN = `codec-token-${randomUUID()}`;
const SECRET = `secret-${randomUUID()}`;
let app: FastifyInstance;
let connection: Connection;
let keyStore: KeyStore;
let keys: Record<string, Minted>;
/** `{"payloads": [...]}` of one payload encrypted with the API's key: `{"secret": SECRET}`. */
let encrypted: unknown;
/** The API's log, for its audit lines. */
let logText = '';
const logLines: Record<string, unknown>[] = [];

beforeAll(async () => {
  const minted = mintKeys({
    codec: { owner: 'ops', scopes: ['codec'] },
    admin: { owner: 'ops', scopes: ['admin'] },
    tasks: { owner: 'alice', scopes: ['tasks:read', 'tasks:write'] },
    disabled: { owner: 'ops', scopes: ['codec'], disabled: true },
    slow: { owner: 'ops', scopes: ['codec'], requestsPerMinute: 2 },
  });
  keys = minted.minted;
  const keysFile = join(mkdtempSync(join(tmpdir(), 'codec-keys-')), 'api-keys.json');
  writeKeysFile(keysFile, minted.file);
  const config = loadConfig({
    TEMPORAL_ADDRESS: '127.0.0.1:1',
    PAYLOAD_ENCRYPTION_KEYS: `k1:${mintPayloadKey()}`,
    PAYLOAD_ENCRYPTION_CURRENT_KEY_ID: 'k1',
    CODEC_AUTH_TOKEN: TOKEN,
    API_KEYS_FILE: keysFile,
  });
  keyStore = new KeyStore(keysFile, pino({ level: 'silent' }));
  connection = apiConnection(config.temporal);
  const dataConverter = createDataConverter(loadPayloadKeyring(config.encryption));
  const codec = dataConverter.payloadCodecs![0]!;
  const tasks = new TaskService({ connection, config, policies: new Policies(), dataConverter });
  const metrics = new ApiMetrics({ readCounts: async () => ({ byStatus: {}, oldestOverdueSeconds: 0 }) });
  const logger = pino(
    { level: 'info' },
    {
      write: (line: string) => {
        logText += line;
        logLines.push(JSON.parse(line) as Record<string, unknown>);
      },
    },
  );
  app = await buildApp({ config, tasks, metrics, keys: keyStore, codec, logger });
  const [payload] = await codec.encode([defaultPayloadConverter.toPayload({ secret: SECRET })]);
  encrypted = {
    payloads: [
      {
        metadata: Object.fromEntries(
          Object.entries(payload!.metadata!).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
        ),
        data: Buffer.from(payload!.data!).toString('base64'),
      },
    ],
  };
});
afterAll(async () => {
  await app?.close();
  keyStore?.close();
  await connection?.close().catch(() => undefined);
});

async function decode(authorization: string | undefined, remoteAddress = '127.0.0.1') {
  const response = await app.inject({
    method: 'POST',
    url: '/codec/decode',
    headers: authorization === undefined ? {} : { authorization },
    payload: encrypted as object,
    remoteAddress,
  });
  return { status: response.statusCode, text: response.body };
}

const secretIn = (text: string) =>
  text.includes(SECRET) || text.includes(Buffer.from(JSON.stringify({ secret: SECRET })).toString('base64'));

describe('the codec endpoint refuses', () => {
  it.each([
    { name: 'an anonymous loopback caller (API keys are on)', auth: () => undefined, status: 401 },
    { name: 'a wrong token', auth: () => `Bearer ${TOKEN}x`, status: 401 },
    { name: 'an unknown API key', auth: () => `Bearer ${mintKey().key}`, status: 401 },
    { name: 'a disabled codec key', auth: () => `Bearer ${keys.disabled!.key}`, status: 401 },
    { name: 'a key with task scopes only', auth: () => `Bearer ${keys.tasks!.key}`, status: 403 },
  ])('$name ($status), and decrypts nothing for it', async ({ auth, status }) => {
    const answer = await decode(auth());
    expect(answer.status).toBe(status);
    expect(JSON.parse(answer.text).error.code).toBe(status === 401 ? 'UNAUTHENTICATED' : 'PERMISSION_DENIED');
    expect(secretIn(answer.text)).toBe(false);
  });
});

describe('the codec endpoint decodes for', () => {
  it.each([
    { name: 'CODEC_AUTH_TOKEN', auth: () => `Bearer ${TOKEN}` },
    { name: 'an API key with scope codec', auth: () => `Bearer ${keys.codec!.key}` },
    { name: 'an admin key', auth: () => `Bearer ${keys.admin!.key}` },
  ])('$name, from any address', async ({ auth }) => {
    const answer = await decode(auth(), '203.0.113.9');
    expect(answer.status).toBe(200);
    const [plain] = (JSON.parse(answer.text) as { payloads: { data: string }[] }).payloads;
    expect(JSON.parse(Buffer.from(plain!.data, 'base64').toString())).toEqual({ secret: SECRET });
  });
});

describe('the codec endpoint counts a key as the API does', () => {
  it("past the key's requests per minute: 429 with Retry-After, and nothing decrypted", async () => {
    const auth = `Bearer ${keys.slow!.key}`;
    expect((await decode(auth)).status).toBe(200);
    expect((await decode(auth)).status).toBe(200);
    const over = await app.inject({
      method: 'POST',
      url: '/codec/decode',
      headers: { authorization: auth },
      payload: encrypted as object,
    });
    expect(over.statusCode).toBe(429);
    expect(over.json()).toMatchObject({ error: { code: 'RESOURCE_EXHAUSTED' } });
    expect(Number(over.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(secretIn(over.body)).toBe(false);
  });
});

describe('an empty argument list', () => {
  // The CLI and the Web UI speak proto3 JSON, which leaves an empty `payloads` out: a query or
  // signal without arguments posts `{}` to /codec/encode.
  it.each(['encode', 'decode'])('`{}` on /codec/%s is no payloads: 200 {"payloads": []}', async (action) => {
    const response = await app.inject({
      method: 'POST',
      url: `/codec/${action}`,
      headers: { authorization: `Bearer ${TOKEN}` },
      payload: {},
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ payloads: [] });
  });
});

describe('the audit log of the codec endpoint', () => {
  it('has one line per call, served or refused, saying who, with what and how it ended; never a secret', async () => {
    const requestIdsBefore = new Set(audit().map((line) => line.requestId));
    await decode(`Bearer ${TOKEN}`);
    await decode(`Bearer ${keys.codec!.key}`);
    await decode(`Bearer ${keys.tasks!.key}`);
    await decode(`Bearer ${TOKEN}x`);
    await decode(undefined, '203.0.113.9');
    const lines = audit().filter((line) => !requestIdsBefore.has(line.requestId));
    expect(lines).toEqual([
      expect.objectContaining({
        action: 'codecDecode',
        credential: 'CODEC_AUTH_TOKEN',
        keyId: null,
        outcome: 'ok',
        status: 200,
        items: 1,
      }),
      expect.objectContaining({
        action: 'codecDecode',
        credential: 'API key',
        keyId: keys.codec!.keyId,
        owner: 'ops',
        outcome: 'ok',
        items: 1,
      }),
      expect.objectContaining({
        action: 'codecDecode',
        keyId: keys.tasks!.keyId,
        outcome: 'PERMISSION_DENIED',
        status: 403,
      }),
      expect.objectContaining({
        action: 'codecDecode',
        outcome: 'UNAUTHENTICATED',
        authFailure: 'malformed',
      }),
      expect.objectContaining({
        action: 'codecDecode',
        outcome: 'UNAUTHENTICATED',
        authFailure: 'missing',
        ip: '203.0.113.9',
        status: 401,
      }),
    ]);
    for (const line of lines.slice(2)) expect(line).not.toHaveProperty('credential');
    expect(logText).not.toContain(TOKEN);
    expect(logText).not.toContain(keys.codec!.key);
    expect(secretIn(logText)).toBe(false);
  });
});

function audit(): Record<string, unknown>[] {
  return logLines.filter((line) => line.msg === 'audit').map((line) => line.audit as Record<string, unknown>);
}
