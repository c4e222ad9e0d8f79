/**
 * The catalog sections of the policy file: retry policies and payload schemas, how they parse,
 * inherit, compile and check payloads. Table-driven: `{ input, expected }`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadPolicies, Policies, PolicyError, type PolicyFile } from '../../../src/task-types/policies.js';
import { DEFAULT_RETRY_POLICY } from '../../../src/shared/backoff.js';

const dir = mkdtempSync(join(tmpdir(), 'catalog-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const orderV1 = {
  type: 'object',
  required: ['orderId'],
  properties: { orderId: { type: 'string' }, amount: { type: 'number' } },
};

describe('retry policies in the policy file', () => {
  it.each([
    { name: 'no section: today’s schedule', file: { taskTypes: { a: {} } }, expected: DEFAULT_RETRY_POLICY },
    {
      name: 'a type’s own section over the defaults',
      file: { taskTypes: { a: { retry: { initialIntervalMs: 300, multiplier: 1.5 } } } },
      expected: { ...DEFAULT_RETRY_POLICY, initialIntervalMs: 300, multiplier: 1.5 },
    },
    {
      name: 'inherits the default section field by field',
      file: {
        default: { retry: { maxIntervalMs: 60_000, maxTotalSeconds: 3600 } },
        taskTypes: { a: { retry: { immediateRetries: 2, initialIntervalMs: 30_000 } } },
      },
      expected: {
        initialIntervalMs: 30_000,
        multiplier: 2,
        maxIntervalMs: 60_000,
        immediateRetries: 2,
        maxTotalSeconds: 3600,
      },
    },
  ])('$name', ({ file, expected }) => {
    expect(new Policies(file as PolicyFile).forType('a')?.retry).toEqual(expected);
  });

  it.each([
    { retry: { initialIntervalMs: 50 }, message: 'taskTypes.a.retry.initialIntervalMs must be >= 100' },
    { retry: { multiplier: 0.5 }, message: 'taskTypes.a.retry.multiplier must be >= 1' },
    { retry: { immediateRetries: 11 }, message: 'taskTypes.a.retry.immediateRetries must be <= 10' },
    { retry: { maxTotalSeconds: 0 }, message: 'taskTypes.a.retry.maxTotalSeconds must be >= 1' },
    { retry: { backoff: 'fast' }, message: 'taskTypes.a.retry.backoff is not a known field' },
    {
      retry: { initialIntervalMs: 5000, maxIntervalMs: 1000 },
      message: 'retry.maxIntervalMs (1000) is below retry.initialIntervalMs (5000)',
    },
  ])('refuses retry $retry', ({ retry, message }) => {
    const build = () => new Policies({ taskTypes: { a: { retry } } } as never);
    expect(build).toThrow(PolicyError);
    expect(build).toThrow(message);
  });
});

describe('payload schemas in the policy file', () => {
  writeFileSync(join(dir, 'v2.json'), JSON.stringify({ ...orderV1, required: ['orderId', 'amount'] }));
  writeFileSync(join(dir, 'broken.json'), JSON.stringify({ type: 'objekt' }));
  writeFileSync(join(dir, 'not-json.json'), '{ "type": ');

  it('compiles inline and file schemas, paths relative to the policy file', () => {
    const path = join(dir, 'policies.json');
    writeFileSync(path, JSON.stringify({ taskTypes: { a: { schemas: { '1': orderV1, '2': 'v2.json' } } } }));
    const schemas = loadPolicies(path).forType('a')?.payloadSchemas;
    expect(schemas?.versions()).toEqual([1, 2]);
    expect(schemas?.schema(2)).toMatchObject({ required: ['orderId', 'amount'] });
  });

  it.each([
    {
      schemas: { '1': join(dir, 'broken.json') },
      message: `payload schema ${join(dir, 'broken.json')} does not compile`,
    },
    {
      schemas: { '1': 'missing.json' },
      message: `cannot read the payload schema ${join(dir, 'missing.json')}`,
    },
    {
      schemas: { '1': 'not-json.json' },
      message: `cannot read the payload schema ${join(dir, 'not-json.json')}`,
    },
    {
      schemas: { '1': { type: 'objekt' } },
      message: 'payload schema taskTypes.a.schemas.1 does not compile',
    },
    { schemas: { '0': orderV1 }, message: 'taskTypes.a.schemas.0 is not a known field' },
    { schemas: { v1: orderV1 }, message: 'taskTypes.a.schemas.v1 is not a known field' },
  ])('refuses schemas $schemas naming where', ({ schemas, message }) => {
    const build = () => new Policies({ taskTypes: { a: { schemas } } } as never, { baseDir: dir });
    expect(build).toThrow(PolicyError);
    expect(build).toThrow(message);
  });

  it.each([
    {
      name: 'requireSchemas with a type without',
      file: { requireSchemas: true, taskTypes: { a: {}, b: { schemas: { '1': orderV1 } } } },
      message: 'declare no schemas: a',
    },
    {
      name: 'schemas in the default section',
      file: { default: { schemas: { '1': orderV1 } } },
      message: 'default.schemas',
    },
  ])('refuses $name', ({ file, message }) => {
    expect(() => new Policies(file as never)).toThrow(message);
  });

  it('accepts requireSchemas when every declared type has schemas', () => {
    const policies = new Policies({
      strict: true,
      requireSchemas: true,
      taskTypes: { b: { schemas: { '1': orderV1 } } },
    });
    expect(policies.forType('b')?.payloadSchemas?.versions()).toEqual([1]);
  });

  const schemas = new Policies({ taskTypes: { a: { schemas: { '1': orderV1 } } } }).forType(
    'a',
  )!.payloadSchemas!;
  it.each([
    { version: 1, payload: { orderId: 'o1' }, expected: { ok: true } },
    {
      version: 1,
      payload: { amount: 'ten' },
      expected: {
        ok: false,
        unknownVersion: false,
        problems: [
          { field: 'payload.orderId', reason: 'is required' },
          { field: 'payload.amount', reason: 'must be number' },
        ],
      },
    },
    { version: 3, payload: { orderId: 'o1' }, expected: { ok: false, unknownVersion: true, declared: [1] } },
  ])('checks v$version $payload', ({ version, payload, expected }) => {
    expect(schemas.check(version, payload)).toEqual(expected);
  });
});

describe('config/task-policies.example.json', () => {
  it('loads, with its schemas and retry policies', () => {
    const policies = loadPolicies('config/task-policies.example.json');
    const order = policies.forType('order.close_timeout');
    expect(order?.payloadSchemas?.versions()).toEqual([1, 2]);
    expect(order?.retry).toEqual({
      immediateRetries: 2,
      initialIntervalMs: 30_000,
      multiplier: 2,
      maxIntervalMs: 120_000,
      maxTotalSeconds: 86_400,
    });
    expect(order?.payloadSchemas?.check(2, { orderId: 'o1', amount: 10, currency: 'EUR' })).toEqual({
      ok: true,
    });
    expect(policies.forType('report.generate')?.retry.multiplier).toBe(1);
  });
});
