/**
 * docs/development.md points the reader "above" and "below": each such pointer is a link to a
 * heading of the file that really is above or below it (it once pointed to a benchmark and a
 * fault matrix that were in other files, and to a `temporal` CLI it never mentioned).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { anchors } from '../../helpers/markdown.js';

const text = readFileSync('docs/development.md', 'utf8');

/** Offset of each heading's anchor in the text, as GitHub slugs it. */
function headingOffsets(markdown: string): Map<string, number> {
  const offsets = new Map<string, number>();
  for (const match of markdown.matchAll(/^#{1,6} +.+$/gm)) {
    const [slug] = [...anchors(match[0])];
    if (slug !== undefined && !offsets.has(slug)) offsets.set(slug, match.index);
  }
  return offsets;
}

describe('docs/development.md', () => {
  it('says "above" and "below" only as links to a heading that is there', () => {
    const offsets = headingOffsets(text);
    const wrong: string[] = [];
    for (const match of text.matchAll(/\b(above|below)\b/gi)) {
      const link = /^\[(above|below)\]\(#([^)]+)\)/i.exec(text.slice(match.index - 1));
      const target = link ? offsets.get(link[2]!) : undefined;
      const line = text.slice(0, match.index).split('\n').length;
      if (!link || target === undefined) wrong.push(`line ${line}: "${match[0]}" is not a link to a heading`);
      else if (match[0].toLowerCase() === 'above' ? target > match.index : target < match.index)
        wrong.push(`line ${line}: "${match[0]}" points to #${link[2]}, which is not ${match[0]}`);
    }
    expect(wrong).toEqual([]);
  });
});
