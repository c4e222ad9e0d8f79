/**
 * The README is a front door into docs/: every relative link in the project's Markdown points at a
 * file that exists, and every `#anchor` at a heading of that file (GitHub's slugs), so moving a
 * section cannot leave a dead link behind.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { anchors, prose } from '../../helpers/markdown.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));

function markdownFiles(): string[] {
  const files = ['README.md', 'conformance/README.md'];
  for (const name of readdirSync(join(root, 'docs'))) if (name.endsWith('.md')) files.push(`docs/${name}`);
  for (const lang of readdirSync(join(root, 'sdk'))) {
    if (existsSync(join(root, 'sdk', lang, 'README.md'))) files.push(`sdk/${lang}/README.md`);
  }
  return files;
}

describe('links in the Markdown', () => {
  it('slugs headings as GitHub does', () => {
    expect([...anchors('# A `code` title\n## Where callbacks may go (SSRF guard)\n## A\n## A\n')]).toEqual([
      'a-code-title',
      'where-callbacks-may-go-ssrf-guard',
      'a',
      'a-1',
    ]);
  });

  for (const file of markdownFiles()) {
    it(`${file}: every relative link and anchor resolves`, () => {
      const text = readFileSync(join(root, file), 'utf8');
      const broken: string[] = [];
      for (const match of prose(text).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
        const target = match[1]!;
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
        const [path, anchor] = target.split('#') as [string, string | undefined];
        const resolved = path ? join(dirname(join(root, file)), decodeURIComponent(path)) : join(root, file);
        if (!existsSync(resolved)) {
          broken.push(`${target} (no file ${relative(root, resolved)})`);
          continue;
        }
        if (anchor && resolved.endsWith('.md') && !anchors(readFileSync(resolved, 'utf8')).has(anchor)) {
          broken.push(`${target} (no heading #${anchor} in ${relative(root, resolved)})`);
        }
      }
      expect(broken).toEqual([]);
    });
  }
});
