/**
 * The setup scripts of deploy/temporal, run against fake `temporal`, `temporal-sql-tool` and `nc`
 * commands: they must retry what a starting server refuses, accept what is already in place and stop
 * on what retrying cannot fix.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cliSearchAttributes } from '../../src/temporal/dev-server.js';
import { repoPath } from './support.js';

/** Logs its arguments; answers as the FAKE_* variables say. `count NAME` counts calls in a file. */
const FAKE_TEMPORAL = `#!/bin/sh
echo "temporal $*" >> "$FAKE_DIR/calls"
count() { n=$(($(cat "$FAKE_DIR/$1" 2>/dev/null || echo 0) + 1)); echo "$n" > "$FAKE_DIR/$1"; echo "$n"; }
case "$1 $2 $3" in
  "operator cluster health")
    [ "$(count health)" -gt "\${FAKE_UNHEALTHY_CALLS:-0}" ] && exit 0
    echo "connection refused" >&2; exit 1 ;;
  "operator namespace describe")
    [ "\${FAKE_NAMESPACE_EXISTS:-0}" = 1 ] && exit 0
    echo "Namespace default is not found" >&2; exit 1 ;;
  "operator namespace create")
    exit 0 ;;
  "operator search-attribute create")
    if [ "$(count search-attribute)" -le "\${FAKE_SEARCH_ATTRIBUTE_FAILURES:-0}" ]; then
      echo "unable to get existing search attributes: Namespace default is not found" >&2; exit 1
    fi
    case "\${FAKE_SEARCH_ATTRIBUTES:-absent}" in
      absent) echo "Search attributes have been added"; exit 0 ;;
      same) echo "unable to add search attributes: Search attribute already exists" >&2; exit 1 ;;
      other) echo "search attribute TaskType already exists and has different type Text" >&2; exit 1 ;;
    esac ;;
esac
echo "unexpected call: $*" >&2
exit 99
`;

const FAKE_SQL_TOOL = `#!/bin/sh
echo "temporal-sql-tool $*" >> "$FAKE_DIR/calls"
[ "\${FAKE_SQL_FAILS:-0}" = 1 ] && { echo "pq: password authentication failed" >&2; exit 1; }
exit 0
`;

const FAKE_NC = `#!/bin/sh
exit 0
`;

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
  calls: string[];
}

const tempDirs: string[] = [];

afterEach(() => {
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function runScript(script: string, env: Record<string, string> = {}): Run {
  const dir = mkdtempSync(join(tmpdir(), 'delayed-tasks-scripts-'));
  tempDirs.push(dir);
  for (const [name, body] of Object.entries({
    temporal: FAKE_TEMPORAL,
    'temporal-sql-tool': FAKE_SQL_TOOL,
    nc: FAKE_NC,
  })) {
    writeFileSync(join(dir, name), body);
    chmodSync(join(dir, name), 0o755);
  }
  writeFileSync(join(dir, 'calls'), '');
  const result = spawnSync('sh', [repoPath(`deploy/temporal/${script}`)], {
    encoding: 'utf8',
    timeout: 10_000,
    env: {
      PATH: `${dir}:${process.env.PATH ?? ''}`,
      FAKE_DIR: dir,
      TEMPORAL_ADDRESS: 'temporal:7233',
      RETRY_DELAY: '0',
      MAX_ATTEMPTS: '4',
      ...env,
    },
  });
  const calls = readFileSync(join(dir, 'calls'), 'utf8').split('\n').filter(Boolean);
  return { status: result.status, stdout: result.stdout, stderr: result.stderr, calls };
}

/** What the script runs for each attribute of ALL_SEARCH_ATTRIBUTES, in order. */
const SEARCH_ATTRIBUTE_CREATES = cliSearchAttributes().map((spec) => {
  const [name, type] = spec.split(':');
  return `temporal operator search-attribute create --namespace default --address temporal:7233 --name ${name} --type ${type}`;
});

describe('register-search-attributes.sh', () => {
  it('registers the four attributes on a fresh namespace', () => {
    const run = runScript('register-search-attributes.sh');
    expect(run.status).toBe(0);
    expect(run.calls).toEqual(SEARCH_ATTRIBUTE_CREATES);
  });

  it('accepts attributes that already exist with their type', () => {
    const run = runScript('register-search-attributes.sh', { FAKE_SEARCH_ATTRIBUTES: 'same' });
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('search attribute TaskType (Keyword) already registered');
  });

  it('retries while the namespace is not yet known', () => {
    const run = runScript('register-search-attributes.sh', { FAKE_SEARCH_ATTRIBUTE_FAILURES: '2' });
    expect(run.status).toBe(0);
    expect(run.calls.filter((call) => call.includes('--name TaskType'))).toHaveLength(3);
  });

  it('stops at once on an attribute of another type', () => {
    const run = runScript('register-search-attributes.sh', { FAKE_SEARCH_ATTRIBUTES: 'other' });
    expect(run.status).toBe(1);
    expect(run.calls).toHaveLength(1);
    expect(run.stderr).toContain('different type');
  });

  it('gives up after MAX_ATTEMPTS', () => {
    const run = runScript('register-search-attributes.sh', { FAKE_SEARCH_ATTRIBUTE_FAILURES: '100' });
    expect(run.status).toBe(1);
    expect(run.calls).toHaveLength(4);
  });

  it('uses the namespace it is given', () => {
    const run = runScript('register-search-attributes.sh', { NAMESPACE: 'tasks-dev' });
    expect(run.calls.every((call) => call.includes('--namespace tasks-dev '))).toBe(true);
  });
});

describe('create-namespace.sh', () => {
  it('waits for a healthy cluster, then creates the missing namespace', () => {
    const run = runScript('create-namespace.sh', { FAKE_UNHEALTHY_CALLS: '2' });
    expect(run.status).toBe(0);
    expect(run.calls).toEqual([
      'temporal operator cluster health --address temporal:7233',
      'temporal operator cluster health --address temporal:7233',
      'temporal operator cluster health --address temporal:7233',
      'temporal operator namespace describe --namespace default --address temporal:7233',
      'temporal operator namespace create --namespace default --retention 7d --address temporal:7233',
    ]);
  });

  it('leaves an existing namespace alone', () => {
    const run = runScript('create-namespace.sh', { FAKE_NAMESPACE_EXISTS: '1' });
    expect(run.status).toBe(0);
    expect(run.calls.some((call) => call.includes('namespace create'))).toBe(false);
  });

  it('fails when the cluster never becomes healthy', () => {
    const run = runScript('create-namespace.sh', { FAKE_UNHEALTHY_CALLS: '100' });
    expect(run.status).toBe(1);
    expect(run.calls).toHaveLength(4);
  });
});

describe('setup-schema.sh', () => {
  const env = { POSTGRES_SEEDS: 'postgresql', POSTGRES_USER: 'temporal', SQL_PASSWORD: 'temporal' };

  it('creates and migrates both databases', () => {
    const run = runScript('setup-schema.sh', env);
    expect(run.status).toBe(0);
    const tool = 'temporal-sql-tool --plugin postgres12 --ep postgresql -p 5432 -u temporal';
    const schemas = '/etc/temporal/schema/postgresql/v12';
    expect(run.calls).toEqual([
      `${tool} --db temporal create`,
      `${tool} --db temporal setup-schema -v 0.0`,
      `${tool} --db temporal update-schema -d ${schemas}/temporal/versioned`,
      `${tool} --db temporal_visibility create`,
      `${tool} --db temporal_visibility setup-schema -v 0.0`,
      `${tool} --db temporal_visibility update-schema -d ${schemas}/visibility/versioned`,
    ]);
  });

  it('fails on the first failing step', () => {
    const run = runScript('setup-schema.sh', { ...env, FAKE_SQL_FAILS: '1' });
    expect(run.status).toBe(1);
    expect(run.calls).toHaveLength(1);
  });

  it('refuses to run without a password', () => {
    const run = runScript('setup-schema.sh', { POSTGRES_SEEDS: 'postgresql', POSTGRES_USER: 'temporal' });
    expect(run.status).not.toBe(0);
    expect(run.calls).toEqual([]);
  });
});
