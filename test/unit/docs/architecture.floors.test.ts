/**
 * docs/architecture.md lists the folders of src/ as floors, each using only those below it. This
 * reads that list and every relative import of src/ (type imports too) and fails on an import that
 * runs sideways or back up, and on a folder the list does not place: the text cannot drift from the
 * code (it once put config and the activities on one floor while the activities import config).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const src = join(root, 'src');

/** Folder → floor number, from the numbered list after "The folders form floors". */
export function floorsOf(markdown: string): Map<string, number> {
  const section = markdown.slice(markdown.indexOf('The folders form floors'));
  const floors = new Map<string, number>();
  for (const match of section.matchAll(/^(\d+)\. +(.+)$/gm)) {
    for (const folder of match[2]!.matchAll(/`([a-z-]+)`/g)) floors.set(folder[1]!, Number(match[1]));
  }
  return floors;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** Every relative import between two top-level folders of src/: `from` imports `to`. */
function crossings(): { file: string; from: string; to: string }[] {
  const topOf = (path: string) => relative(src, path).split('/')[0]!;
  return sourceFiles(src).flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(/\bfrom '(\.{1,2}\/[^']+)'/g)]
      .map((m) => ({
        file: relative(root, file),
        from: topOf(file),
        to: topOf(resolve(dirname(file), m[1]!)),
      }))
      .filter(({ from, to }) => from !== to),
  );
}

describe('the floors of docs/architecture.md', () => {
  const floors = floorsOf(readFileSync(join(root, 'docs/architecture.md'), 'utf8'));
  const folders = readdirSync(src).filter((name) => statSync(join(src, name)).isDirectory());

  it('place every folder of src/', () => {
    expect(floors.size).toBeGreaterThan(10);
    expect(folders.filter((folder) => !floors.has(folder))).toEqual([]);
  });

  it('hold for every import: none runs sideways or back up', () => {
    const found = crossings();
    expect(found.length).toBeGreaterThan(100);
    const wrong = found
      .filter(({ from, to }) => !(floors.get(to)! < floors.get(from)!))
      .map(
        ({ file, from, to }) =>
          `${file}: ${from} (floor ${floors.get(from)}) imports ${to} (floor ${floors.get(to)})`,
      );
    expect([...new Set(wrong)]).toEqual([]);
  });

  it('would catch the old text, which put config and the activities on one floor', () => {
    const old = floorsOf('The folders form floors\n\n1. `config`, `activities`\n');
    const wrong = crossings().filter(
      ({ from, to }) => old.has(from) && old.has(to) && !(old.get(to)! < old.get(from)!),
    );
    expect(wrong.map(({ from, to }) => `${from}->${to}`)).toContain('activities->config');
  });
});
