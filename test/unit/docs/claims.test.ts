/**
 * What the README and docs/ name must exist: a repository path in backticks, a patch id passed to
 * `patched()` or `deprecatePatch()` (src/shared/constants.ts WORKFLOW_PATCHES), an environment name
 * (the configuration table, which test/unit/config/environment.docs.test.ts holds against the code,
 * or the source that reads it), a cron macro the parser accepts. Also the one spelling of a type's
 * queue and who reads `process.env`. Each of these once drifted: a moved test file, a patch id that
 * never existed, `@annually` and `@midnight` accepted but not documented, five spellings of a queue.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseCron } from '../../../src/schedules/cron.js';
import { WORKFLOW_PATCHES } from '../../../src/shared/constants.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const docs = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((n) => n.endsWith('.md'))
    .map((n) => `docs/${n}`),
];

/** Installed dependencies and build output: not the project's words. */
const SKIPPED_DIRS = new Set(['node_modules', '.venv', 'target', 'dist', '.tools', '.data']);

function sourceText(dir: string): string {
  return readdirSync(join(root, dir))
    .filter((name) => !SKIPPED_DIRS.has(name))
    .map((name) => {
      const path = join(dir, name);
      if (statSync(join(root, path)).isDirectory()) return sourceText(path);
      return /\.(ts|mjs|sh|go|py|java|json)$/.test(name) ? read(path) : '';
    })
    .join('\n');
}

/** `path` in backticks under one of the repository's top-level folders; placeholders and globs left out. */
export function namedPaths(markdown: string): string[] {
  const paths: string[] = [];
  for (const match of markdown.matchAll(
    /`\.?\/?((?:src|test|scripts|docs|deploy|bench|conformance|config|sdk|\.ci)\/[^`\s]*)`/g,
  )) {
    const path = match[1]!.replace(/:\d+(-\d+)?$/, '');
    if (/[<>*{}]/.test(path) || /^sdk\/\w+\/v\d/.test(path)) continue; // a placeholder, a glob, a Go module tag
    paths.push(path);
  }
  return paths;
}

describe('what the docs name exists', () => {
  it('finds paths as the docs write them', () => {
    expect(
      namedPaths('see `src/a.ts:12`, `./scripts/b.sh`, `test/fixtures/histories/<shape>/`, `sdk/go/v0.3.0`'),
    ).toEqual(['src/a.ts', 'scripts/b.sh']);
  });

  for (const file of docs) {
    it(`${file}: every repository path it names exists`, () => {
      const missing = namedPaths(read(file)).filter((path) => !existsSync(join(root, path)));
      expect(missing).toEqual([]);
    });
  }

  it('every patch id the docs pass to patched() or deprecatePatch() is in WORKFLOW_PATCHES', () => {
    const keys = new Set<string>(Object.keys(WORKFLOW_PATCHES));
    const ids = new Set<string>(Object.values(WORKFLOW_PATCHES));
    const wrong: string[] = [];
    for (const file of docs) {
      for (const match of read(file).matchAll(/\b(?:patched|deprecatePatch)\(([^)]+)\)/g)) {
        const arg = match[1]!.trim();
        const literal = /^'([^']+)'$/.exec(arg)?.[1];
        const key = /^WORKFLOW_PATCHES\.(\w+)$/.exec(arg)?.[1];
        if (literal !== undefined ? !ids.has(literal) : key === undefined || !keys.has(key))
          wrong.push(`${file}: ${match[0]}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('every environment name in the docs is in the configuration table or read by the code', () => {
    const conf = read('docs/configuration.md');
    const table = new Set([...conf.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!));
    const code =
      ['src', 'scripts', 'test', 'bench', 'sdk', 'conformance'].map(sourceText).join('\n') + read('.ci/run');
    const wrong: string[] = [];
    for (const file of docs) {
      const text = read(file);
      for (const match of text.matchAll(/(?<![\w.$])([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)(?![\w])/g)) {
        const name = match[1]!;
        if (table.has(name) || code.includes(name)) continue;
        if (name.startsWith('OTEL_')) continue; // OpenTelemetry's standard variables, read by its SDK
        if (text.includes(`"env": "${name}"`)) continue; // a user's own variable in an example policy file
        wrong.push(`${file}: ${name}`);
      }
    }
    expect([...new Set(wrong)]).toEqual([]);
  });

  it('docs/api.md names every cron macro the parser accepts, and each it names parses', () => {
    const accepted = [...read('src/shared/cron-macros.ts').matchAll(/^\s*'(@[a-z]+)':/gm)].map((m) => m[1]!);
    expect(accepted.length).toBeGreaterThan(5);
    const line = /exactly one of `cron` \(([^)]*)\)/.exec(read('docs/api.md').replace(/\n/g, ' '))?.[1] ?? '';
    const named = [...line.matchAll(/`(@[a-z]+)`/g)].map((m) => m[1]!);
    expect(named.sort()).toEqual([...accepted].sort());
    for (const macro of named) expect(() => parseCron(macro)).not.toThrow();
  });
});

describe('one way to say it', () => {
  it('a type queue is spelled `<TASK_QUEUE>.callbacks.<type>` wherever a placeholder stands', () => {
    const wrong: string[] = [];
    for (const file of docs) {
      for (const match of read(file).matchAll(/[\w<>{}$-]*\.callbacks\.[\w<>{}*$-]*/g)) {
        const spelled = match[0];
        const placeholder = /[<>{}*$]/.test(spelled);
        if (placeholder && spelled !== '<TASK_QUEUE>.callbacks.<type>') wrong.push(`${file}: ${spelled}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('src/config/ reads process.env, and the one other reader is the launcher docs/architecture.md names', () => {
    const readers: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(join(root, dir))) {
        const path = join(dir, name);
        if (statSync(join(root, path)).isDirectory()) walk(path);
        else if (name.endsWith('.ts') && read(path).includes('process.env')) readers.push(path);
      }
    };
    walk('src');
    const others = readers.filter((path) => !path.startsWith('src/config/'));
    expect(others).toEqual(['src/dev/start.ts']);
    const architecture = read('docs/architecture.md');
    expect(architecture).toMatch(
      /only reader of `process\.env` in the service; the local launcher `src\/dev\/start\.ts` also reads it/,
    );
  });
});
