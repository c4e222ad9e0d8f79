/**
 * The configuration's documentation is complete both ways: every key src/config/environment.ts reads is in
 * .env.example and in the configuration table of docs/configuration.md, and every key those two list is read somewhere
 * (by src/config/environment.ts, or by a script or the test harness, which the table says). The example policy
 * file loads and uses every field a policy file may have.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/environment.js';
import { loadPolicies, PolicyFileSchema, PolicySchema } from '../../../src/task-types/policies.js';

const read = (path: string) => readFileSync(path, 'utf8');

/** Keys src/config/ reads: the first argument of each `read.<kind>('KEY', ...)` in its modules. */
function configKeys(): Set<string> {
  const sources = ['src/config/environment.ts', 'src/config/tracing.ts'].map(read).join('\n');
  return new Set([...sources.matchAll(/read\s*\.\s*\w+\(\s*'([A-Z][A-Z0-9_]*)'/g)].map((m) => m[1]!));
}

/** Keys .env.example sets or shows commented out (`KEY=` or `# KEY=`). */
function envExampleKeys(): Set<string> {
  return new Set([...read('.env.example').matchAll(/^#?\s*([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]!));
}

/** Keys named in the first column of the configuration table (docs/configuration.md, before its first section). */
function docKeys(): Set<string> {
  const doc = read('docs/configuration.md');
  const table = doc.slice(0, doc.indexOf('\n## '));
  const keys = new Set<string>();
  for (const line of table.split('\n')) {
    const first = line.split('|')[1];
    if (!first) continue;
    for (const match of first.matchAll(/`([A-Z][A-Z0-9_]*)`/g)) keys.add(match[1]!);
  }
  return keys;
}

/** Source of the scripts, the dev launcher and the test harness: where the other keys are read. */
function otherReaders(): string {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.(ts|sh)$/.test(name)) files.push(path);
    }
  };
  for (const dir of ['scripts', 'src/dev', 'test/helpers']) walk(dir);
  return files.map(read).join('\n');
}

describe('configuration keys', () => {
  const fromConfig = configKeys();

  it('src/config/environment.ts reads the keys this test finds (the parser is not blind)', () => {
    expect(fromConfig.size).toBeGreaterThan(40);
    for (const key of ['TEMPORAL_ADDRESS', 'TEMPORAL_RPC_TIMEOUT_MS', 'CODEC_AUTH_TOKEN', 'LOG_LEVEL']) {
      expect(fromConfig).toContain(key);
    }
  });

  it.each([
    ['.env.example', envExampleKeys],
    ['docs/configuration.md table', docKeys],
  ])('%s lists every key src/config/environment.ts reads', (_name, documented) => {
    expect([...fromConfig].filter((key) => !documented().has(key))).toEqual([]);
  });

  it.each([
    ['.env.example', envExampleKeys],
    ['docs/configuration.md table', docKeys],
  ])('%s lists no key nobody reads', (_name, documented) => {
    const others = otherReaders();
    const unread = [...documented()].filter(
      (key) => !fromConfig.has(key) && !new RegExp(`\\b${key}\\b`).test(others),
    );
    expect(unread).toEqual([]);
  });

  it('.env.example as it stands is a valid configuration', () => {
    const env = Object.fromEntries(
      [...read('.env.example').matchAll(/^([A-Z][A-Z0-9_]*)=(.*)$/gm)].map((m) => [m[1]!, m[2]!]),
    );
    expect(Object.keys(env).length).toBeGreaterThan(20);
    expect(() => loadConfig(env)).not.toThrow();
  });
});

describe('config/task-policies.example.json', () => {
  const example = JSON.parse(read('config/task-policies.example.json')) as Record<string, unknown>;

  it('loads', () => {
    expect(() => loadPolicies('config/task-policies.example.json')).not.toThrow();
  });

  it('shows every field of the file and of a policy', () => {
    const policies = [
      example.default,
      ...Object.values((example.taskTypes ?? {}) as Record<string, unknown>),
    ] as Record<string, unknown>[];
    const fileFields = Object.keys(PolicyFileSchema.properties).filter((field) => !(field in example));
    const policyFields = Object.keys(PolicySchema.properties).filter(
      (field) => !policies.some((policy) => field in policy),
    );
    expect({ fileFields, policyFields }).toEqual({ fileFields: [], policyFields: [] });
  });
});
