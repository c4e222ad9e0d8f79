/**
 * API keys as pure logic: format, checksum, hash, the keys file's validation, authentication of a
 * header against a key ring, the loopback rule, task-type and host limits, and the keys CLI.
 */
import { mkdtempSync, readFileSync, existsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KeyRing } from '../../../src/auth/key-store.js';
import {
  bearerToken,
  composeKey,
  crc32,
  hashKey,
  keyMatches,
  KeysFileError,
  mintKey,
  parseKey,
  validateKeysFile,
  type KeyEntry,
} from '../../../src/auth/keys.js';
import { checkTaskAccess, hasScope, ownerAccess, taskTypeMatches } from '../../../src/auth/principal.js';
import { isLoopbackHost, refusalWithoutKeys } from '../../../src/auth/secure-default.js';
import { runKeysCommand, UsageError } from '../../../src/cli/keys.js';
import { ApiError } from '../../../src/errors/catalog.js';
import { WebhookSecrets } from '../../../src/security/webhook-secrets.js';

const minted = mintKey();
const RANDOM = 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0U1v';

describe('key format', () => {
  it('mints dts_<12 base62>_<49 base62> keys that parse to their id, never twice the same', () => {
    expect(minted.key).toMatch(/^dts_[0-9A-Za-z]{12}_[0-9A-Za-z]{49}$/);
    expect(parseKey(minted.key)).toEqual({ keyId: minted.keyId });
    const many = new Set(Array.from({ length: 200 }, () => mintKey().key));
    expect(many.size).toBe(200);
  });

  it('computes CRC-32 as zlib does', () => {
    expect(crc32('123456789')).toBe(0xcbf43926);
    expect(crc32('')).toBe(0);
  });

  const valid = composeKey('abcDEF123456', RANDOM);
  it.each([
    { name: 'a composed key', key: valid, expected: { keyId: 'abcDEF123456' } },
    {
      name: 'the last character changed',
      key: `${valid.slice(0, -1)}${valid.endsWith('A') ? 'B' : 'A'}`,
      expected: undefined,
    },
    { name: 'a secret character changed', key: valid.replace('A1b2', 'A1b3'), expected: undefined },
    { name: 'another prefix', key: valid.replace(/^dts_/, 'dtx_'), expected: undefined },
    { name: 'an upper-case prefix', key: valid.replace(/^dts_/, 'DTS_'), expected: undefined },
    { name: 'a short key id', key: valid.replace('abcDEF123456', 'abcDEF12345'), expected: undefined },
    { name: 'a character too many', key: `${valid}0`, expected: undefined },
    { name: 'a character outside base62', key: valid.replace('A1b2', 'A-b2'), expected: undefined },
    { name: 'surrounding space', key: ` ${valid}`, expected: undefined },
    { name: 'nothing', key: '', expected: undefined },
  ])('parses $name: $expected', ({ key, expected }) => {
    expect(parseKey(key)).toEqual(expected);
  });

  it('stores sha256:<hex> of the whole key and compares against it', () => {
    const hash = hashKey(minted.key);
    expect(hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(hash).not.toContain(minted.key.slice(17));
    expect(keyMatches(minted.key, hash)).toBe(true);
    expect(keyMatches(mintKey().key, hash)).toBe(false);
    expect(keyMatches(minted.key, 'sha256:00')).toBe(false);
  });

  it.each([
    { header: `Bearer ${valid}`, token: valid },
    { header: `bearer   ${valid}`, token: valid },
    { header: `Bearer ${valid} `, token: valid },
    { header: `Basic ${valid}`, token: '' },
    { header: `Bearer ${valid} extra`, token: '' },
    { header: valid, token: '' },
    { header: undefined, token: '' },
  ])('reads the bearer token of $header', ({ header, token }) => {
    expect(bearerToken(header)).toBe(token);
  });
});

function entry(fields: Partial<KeyEntry> = {}): KeyEntry {
  return { id: minted.keyId, owner: 'orders', hash: hashKey(minted.key), scopes: ['tasks:read'], ...fields };
}

describe('keys file', () => {
  it('accepts a full entry', () => {
    const file = {
      keys: [
        entry({
          allowedTaskTypes: ['order.*', 'coupon.expire'],
          allowedCallbackHosts: ['orders.internal', '*.svc.cluster.local'],
          requestsPerMinute: 600,
          expiresAt: '2027-01-01T00:00:00Z',
          disabled: false,
          createdAt: '2026-12-01T00:00:00Z',
          description: 'orders service, prod',
        }),
      ],
    };
    expect(validateKeysFile(file)).toBe(file);
  });

  it.each([
    { name: 'no keys array', file: {}, problem: 'keys is required' },
    {
      name: 'an unknown top-level field',
      file: { keys: [], extra: 1 },
      problem: 'extra is not a known field',
    },
    {
      name: 'an unknown entry field',
      file: { keys: [{ ...entry(), secret: 'x' }] },
      problem: 'keys.0.secret is not a known field',
    },
    {
      name: 'an unknown scope',
      file: { keys: [entry({ scopes: ['tasks:all' as 'admin'] })] },
      problem: 'keys.0.scopes.0',
    },
    {
      name: 'no scope',
      file: { keys: [entry({ scopes: [] })] },
      problem: 'keys.0.scopes must NOT have fewer than 1 items',
    },
    {
      name: 'an owner with a slash',
      file: { keys: [entry({ owner: 'a/b' })] },
      problem: 'keys.0.owner must match',
    },
    {
      name: 'a plain-text secret as hash',
      file: { keys: [entry({ hash: minted.key })] },
      problem: 'keys.0.hash must match',
    },
    { name: 'a bad expiry', file: { keys: [entry({ expiresAt: 'tomorrow' })] }, problem: 'keys.0.expiresAt' },
    {
      name: 'a bad task type rule',
      file: { keys: [entry({ allowedTaskTypes: ['Order.*'] })] },
      problem: 'keys.0.allowedTaskTypes.0',
    },
    {
      name: 'a zero rate',
      file: { keys: [entry({ requestsPerMinute: 0 })] },
      problem: 'keys.0.requestsPerMinute',
    },
    {
      name: 'a duplicate id',
      file: { keys: [entry(), entry({ owner: 'billing' })] },
      problem: 'keys.1.id duplicates keys.0.id',
    },
  ])('rejects $name, naming the field', ({ file, problem }) => {
    expect(() => validateKeysFile(file)).toThrow(KeysFileError);
    expect(() => validateKeysFile(file)).toThrow(problem);
  });
});

describe('authentication against a key ring', () => {
  const now = Date.parse('2026-12-03T10:00:00Z');
  const other = mintKey();
  const expired = mintKey();
  const disabled = mintKey();
  const ring = new KeyRing([
    entry({ requestsPerMinute: 60, allowedTaskTypes: ['order.*'] }),
    {
      id: expired.keyId,
      owner: 'orders',
      hash: hashKey(expired.key),
      scopes: ['admin'],
      expiresAt: '2026-12-03T10:00:00Z',
    },
    { id: disabled.keyId, owner: 'orders', hash: hashKey(disabled.key), scopes: ['admin'], disabled: true },
  ]);

  it.each([
    { name: 'no header', header: undefined, reason: 'missing' },
    { name: 'an empty header', header: '', reason: 'missing' },
    { name: 'Basic', header: 'Basic dXNlcjpwYXNz', reason: 'malformed' },
    { name: 'a random token', header: 'Bearer abc', reason: 'malformed' },
    { name: 'a key with a bad checksum', header: `Bearer ${minted.key.slice(0, -1)}!`, reason: 'malformed' },
    { name: 'an unknown key', header: `Bearer ${other.key}`, reason: 'unknown' },
    {
      name: 'a known id with another secret',
      header: `Bearer ${composeKey(minted.keyId, RANDOM)}`,
      reason: 'unknown',
    },
    { name: 'a key expiring now', header: `Bearer ${expired.key}`, reason: 'expired' },
    { name: 'a disabled key', header: `Bearer ${disabled.key}`, reason: 'disabled' },
  ])('refuses $name as $reason', ({ header, reason }) => {
    expect(ring.authenticate(header, now)).toMatchObject({ ok: false, reason });
  });

  it('accepts a good key as its principal', () => {
    expect(ring.authenticate(`Bearer ${minted.key}`, now)).toEqual({
      ok: true,
      principal: {
        keyId: minted.keyId,
        owner: 'orders',
        scopes: ['tasks:read'],
        allowedTaskTypes: ['order.*'],
        allowedCallbackHosts: undefined,
        requestsPerMinute: 60,
      },
    });
    expect(ring.authenticate(`Bearer ${expired.key}`, now - 1)).toMatchObject({ ok: true });
  });
});

describe('scopes and limits', () => {
  it.each([
    { scopes: ['tasks:read'], scope: 'tasks:read', expected: true },
    { scopes: ['tasks:read'], scope: 'tasks:write', expected: false },
    { scopes: ['tasks:write'], scope: 'admin', expected: false },
    { scopes: ['admin'], scope: 'tasks:write', expected: true },
    { scopes: ['admin'], scope: 'admin', expected: true },
  ] as const)('$scopes has $scope: $expected', ({ scopes, scope, expected }) => {
    expect(hasScope({ scopes }, scope)).toBe(expected);
  });

  it.each([
    { type: 'order.close', pattern: 'order.close', expected: true },
    { type: 'order.close', pattern: 'order.*', expected: true },
    { type: 'order', pattern: 'order.*', expected: false },
    { type: 'orders.close', pattern: 'order.*', expected: false },
    { type: 'order.close2', pattern: 'order.close', expected: false },
    { type: 'anything', pattern: '*', expected: true },
  ])('$type matches $pattern: $expected', ({ type, pattern, expected }) => {
    expect(taskTypeMatches(type, pattern)).toBe(expected);
  });

  const limited = {
    owner: 'orders',
    allowedTaskTypes: ['order.*'],
    allowedCallbackHosts: ['*.orders.internal', 'cb.example'],
  };
  it.each([
    { task: { taskType: 'order.x', callbackUrl: 'https://a.orders.internal/cb' }, field: undefined },
    { task: { taskType: 'order.x', callbackUrl: 'https://cb.example:8443/cb' }, field: undefined },
    { task: { taskType: 'order.x' }, field: undefined },
    { task: { taskType: 'coupon.x', callbackUrl: 'https://cb.example/cb' }, field: 'taskType' },
    { task: { taskType: 'order.x', callbackUrl: 'https://orders.internal.evil/cb' }, field: 'callbackUrl' },
    { task: { taskType: 'order.x', callbackUrl: 'https://evil.example/cb' }, field: 'callbackUrl' },
  ])('checks $task: refused on $field', ({ task, field }) => {
    let error: unknown;
    try {
      checkTaskAccess(limited, task);
    } catch (err) {
      error = err;
    }
    if (field === undefined) expect(error).toBeUndefined();
    else {
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).toBody().error).toMatchObject({
        code: 'PERMISSION_DENIED',
        details: [{ field }],
      });
    }
    expect(() => checkTaskAccess(ownerAccess('orders'), task)).not.toThrow();
  });
});

describe('secure default', () => {
  it.each([
    { host: '127.0.0.1', loopback: true },
    { host: '127.8.9.10', loopback: true },
    { host: 'localhost', loopback: true },
    { host: '::1', loopback: true },
    { host: '[::1]', loopback: true },
    { host: '::ffff:127.0.0.1', loopback: true },
    { host: '0.0.0.0', loopback: false },
    { host: '::', loopback: false },
    { host: '10.0.0.1', loopback: false },
    { host: '128.0.0.1', loopback: false },
    { host: 'api.internal', loopback: false },
    { host: 'localhost.evil.example', loopback: false },
  ])('$host is loopback: $loopback', ({ host, loopback }) => {
    expect(isLoopbackHost(host)).toBe(loopback);
    expect(refusalWithoutKeys(host, undefined) === undefined).toBe(loopback);
    expect(refusalWithoutKeys(host, '/keys.json')).toBeUndefined();
  });
});

describe('keys CLI', () => {
  const dir = mkdtempSync(join(tmpdir(), 'keys-cli-'));
  const file = join(dir, 'api-keys.json');
  const now = new Date('2026-12-03T10:00:00Z');
  const run = (...args: string[]) => runKeysCommand(args, file, now);

  it('creates a key, prints it once and stores only its hash, in a file only its owner reads', () => {
    const output = run(
      'create',
      '--owner',
      'orders',
      '--scopes',
      'tasks:write,tasks:read',
      '--task-types',
      'order.*',
      '--requests-per-minute',
      '600',
      '--expires-in-days',
      '30',
    );
    const key = /^(dts_\S+)$/m.exec(output)?.[1];
    expect(key).toBeDefined();
    const keyId = parseKey(key!)!.keyId;
    const stored = readFileSync(file, 'utf8');
    expect(stored).not.toContain(key);
    expect(stored).not.toContain(key!.slice(`dts_${keyId}_`.length));
    expect(statSync(file).mode & 0o077).toBe(0);
    expect(JSON.parse(stored).keys).toEqual([
      {
        id: keyId,
        owner: 'orders',
        hash: hashKey(key!),
        scopes: ['tasks:write', 'tasks:read'],
        createdAt: '2026-12-03T10:00:00.000Z',
        allowedTaskTypes: ['order.*'],
        requestsPerMinute: 600,
        expiresAt: '2027-01-02T10:00:00.000Z',
      },
    ]);
    expect(new KeyRing(JSON.parse(stored).keys).authenticate(`Bearer ${key}`, now.getTime())).toMatchObject({
      ok: true,
    });

    const listed = run('list');
    expect(listed).toContain(keyId);
    expect(listed).toContain('active');
    expect(listed).not.toContain(key!.slice(`dts_${keyId}_`.length));

    expect(run('disable', keyId)).toContain('disabled');
    expect(run('list')).toMatch(new RegExp(`${keyId}.*disabled`));
    expect(JSON.parse(readFileSync(file, 'utf8')).keys[0].disabled).toBe(true);
    expect(run('enable', keyId)).toContain('enabled');
    expect(JSON.parse(readFileSync(file, 'utf8')).keys[0].disabled).toBeUndefined();
  });

  it('mints with --if-none only into an empty file', () => {
    expect(run('create', '--owner', 'x', '--scopes', 'admin', '--if-none')).toMatch(
      /already has 1 key\(s\); none minted/,
    );
    const fresh = join(dir, 'fresh.json');
    expect(
      runKeysCommand(['create', '--owner', 'ops', '--scopes', 'admin', '--if-none'], fresh, now),
    ).toMatch(/^dts_/m);
    expect(existsSync(fresh)).toBe(true);
  });

  it.each([
    { args: ['create', '--scopes', 'admin'], message: 'create needs --owner' },
    { args: ['create', '--owner', 'x', '--scopes', 'tasks:all'], message: '--scopes takes' },
    { args: ['create', '--owner', 'Bad/Owner', '--scopes', 'admin'], message: 'keys.1.owner must match' },
    { args: ['disable'], message: 'disable needs a key id' },
    { args: ['disable', 'nosuchkey000'], message: 'no key nosuchkey000' },
    { args: ['rotate'], message: 'unknown command rotate' },
  ])('refuses $args', ({ args, message }) => {
    expect(() => run(...args)).toThrow(message);
  });

  it('needs a file', () => {
    expect(() => runKeysCommand(['list'], undefined)).toThrow(UsageError);
  });

  it("mints a new owner's own webhook signing secret, once, never reusing another owner's", () => {
    const secretsFile = join(dir, 'webhook-secrets.json');
    const signing = { file: secretsFile, defaultOwnerHasSecret: true };
    const create = (owner: string) =>
      runKeysCommand(['create', '--owner', owner, '--scopes', 'tasks:write'], file, now, signing);
    const first = create('billing');
    const owners = new WebhookSecrets({ secretsFile });
    const [secret] = owners.secretsFor('billing');
    expect(secret).toMatch(/^whsec_/);
    expect(first).toContain(secret);
    // A second key of the same owner keeps its secret; another owner gets another one.
    expect(create('billing')).not.toContain('whsec_');
    create('payments');
    const reread = JSON.parse(readFileSync(secretsFile, 'utf8')) as { owners: Record<string, string[]> };
    expect(reread.owners.billing).toEqual([secret]);
    expect(reread.owners.payments).toHaveLength(1);
    expect(reread.owners.payments![0]).not.toBe(secret);
    // `default` signs with WEBHOOK_SECRET: nothing minted for it.
    expect(create('default')).not.toContain('whsec_');
    expect(reread.owners.default).toBeUndefined();
  });

  it('says that a new owner without a secrets file will have its callbacks held', () => {
    const output = runKeysCommand(['create', '--owner', 'reports', '--scopes', 'tasks:write'], file, now, {
      file: undefined,
      defaultOwnerHasSecret: true,
    });
    expect(output).toContain('held');
    expect(output).toContain('webhook-secrets -- create --owner reports');
  });
});
