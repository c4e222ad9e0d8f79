/**
 * Every place the docs list the custom search attributes (`SEARCH_ATTRIBUTES`, src/shared/constants.ts)
 * names them all: the commands an operator copies to register them on an existing cluster or on
 * Temporal Cloud (with the types the deploy script registers), what stays in clear because Temporal
 * does not encrypt search attributes, and the workflow's part in keeping them. A new search attribute
 * (docs/development.md, "Adding a task field") fails here until each list has it.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ALL_SEARCH_ATTRIBUTES } from '../../../src/shared/constants.js';
import { cliSearchAttributes } from '../../../src/temporal/dev-server.js';

const read = (path: string) => readFileSync(path, 'utf8');
const names = ALL_SEARCH_ATTRIBUTES.map(({ name }) => name).sort();
const registered = cliSearchAttributes().sort();

/** The list item of `markdown` that starts with `start`, up to the next item or paragraph. */
function item(markdown: string, start: string): string {
  const at = markdown.indexOf(start);
  if (at < 0) throw new Error(`no list item starting with ${start}`);
  return markdown.slice(at).split(/\n(?=- |\n)/)[0]!;
}

describe('the custom search attributes, wherever the docs list them', () => {
  const operating = read('docs/operating.md');

  it('docs/operating.md: `temporal operator search-attribute create` registers each, with its type', () => {
    const created = [...operating.matchAll(/search-attribute create --name (\w+) --type (\w+)/g)];
    expect(
      created.map(([, name, type]) => `${name}:${type}`).sort(),
      `one \`temporal operator search-attribute create --name NAME --type TYPE\` line for each of ${registered.join(' ')}`,
    ).toEqual(registered);
  });

  it('docs/operating.md: the `tcld` command adds each, with its type', () => {
    const command = /tcld namespace search-attributes add[^`]*/.exec(operating)?.[0] ?? '';
    const added = [...command.matchAll(/--search-attribute (\w+)=(\w+)/g)];
    expect(
      added.map(([, name, type]) => `${name}:${type}`).sort(),
      `one \`--search-attribute NAME=TYPE\` for each of ${registered.join(' ')}`,
    ).toEqual(registered);
  });

  it('docs/security.md: what stays in clear names each (Temporal does not encrypt them)', () => {
    const inClear = item(read('docs/security.md'), '- **What stays in clear**');
    expect(
      names.filter((name) => !inClear.includes(`\`${name}\``)),
      'search attributes the "What stays in clear" item of docs/security.md does not name',
    ).toEqual([]);
  });

  it('docs/architecture.md: the search attributes the workflow keeps names each', () => {
    const kept = item(read('docs/architecture.md'), '- The workflow keeps the search attributes');
    expect(
      names.filter((name) => !kept.includes(`\`${name}\``)),
      'search attributes the item of docs/architecture.md on what the workflow keeps does not name',
    ).toEqual([]);
  });
});
