/**
 * docs/sdks.md's table of one vocabulary names every filter of the task list in its TypeScript
 * column (the wire's names; the other columns say how each language spells them), as the contract
 * has them (src/contract/tasks.ts): a filter added to the API fails here until the table has it.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ListTasksQuerySchema } from '../../../src/contract/tasks.js';

describe('docs/sdks.md', () => {
  it('names every list filter in the TypeScript column of its "list filters" row, and no other', () => {
    const row = readFileSync('docs/sdks.md', 'utf8')
      .split('\n')
      .find((line) => /^\| list filters +\|/.test(line));
    const named = [...(row?.split('|')[2] ?? '').matchAll(/`(\w+)`/g)].map(([, name]) => name);
    expect(named.sort(), 'the "list filters" row of docs/sdks.md').toEqual(
      Object.keys(ListTasksQuerySchema.properties).sort(),
    );
  });
});
