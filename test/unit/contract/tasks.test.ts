/**
 * What a client sends is bounded in the contract (src/contract/tasks.ts): every string of a create
 * body and of a list query has a maximum length (or a pattern, a literal or an enum that bounds it),
 * every array a maximum number of items. A new field without bounds (docs/development.md, "Adding a
 * task field") fails here, naming it; what is bounded elsewhere says where.
 */
import { describe, expect, it } from 'vitest';
import { CreateTaskBodySchema, ListTasksQuerySchema } from '../../../src/contract/tasks.js';

/** Fields bounded outside the schema, and where. */
const BOUNDED_ELSEWHERE: Record<string, string> = {
  payload: 'checkPayload (src/tasks/input.ts): MAX_PAYLOAD_BYTES and MAX_PAYLOAD_DEPTH',
};

interface Schema {
  type?: string;
  maxLength?: number;
  maxItems?: number;
  pattern?: string;
  const?: unknown;
  enum?: unknown[];
  items?: Schema;
  properties?: Record<string, Schema>;
  anyOf?: Schema[];
}

/** A pattern anchored at both ends whose every repetition has an upper bound. */
const boundedPattern = (pattern: string) =>
  pattern.startsWith('^') && pattern.endsWith('$') && !/[*+]|\{\d+,\}/.test(pattern);

/** The paths of the strings and arrays under `schema` that nothing bounds. */
function unbounded(schema: Schema, path: string): string[] {
  if (path in BOUNDED_ELSEWHERE) return [];
  if (schema.anyOf) return schema.anyOf.flatMap((option) => unbounded(option, path));
  if (schema.const !== undefined || schema.enum) return [];
  if (schema.type === 'string') {
    const bounded = schema.maxLength !== undefined || (schema.pattern && boundedPattern(schema.pattern));
    return bounded ? [] : [path];
  }
  if (schema.type === 'array') {
    return [...(schema.maxItems === undefined ? [path] : []), ...unbounded(schema.items ?? {}, `${path}[]`)];
  }
  return Object.entries(schema.properties ?? {}).flatMap(([name, child]) =>
    unbounded(child, path ? `${path}.${name}` : name),
  );
}

describe('what a client sends is bounded', () => {
  it.each([
    ['the create body', CreateTaskBodySchema],
    ['the list query', ListTasksQuerySchema],
  ])('%s: every string has a maximum length, every array a maximum of items', (_, schema) => {
    expect(unbounded(schema as Schema, ''), 'give them maxLength (or a bounded pattern) or maxItems').toEqual(
      [],
    );
  });

  it('sees what it checks', () => {
    expect(boundedPattern('^[a-z]{0,63}$')).toBe(true);
    expect(boundedPattern('^[a-z]+$')).toBe(false);
    expect(unbounded({ type: 'object', properties: { a: { type: 'string' } } }, '')).toEqual(['a']);
    expect(
      unbounded({ type: 'array', maxItems: 3, items: { type: 'string', pattern: '^x{1,2}$' } }, 'tags'),
    ).toEqual([]);
    expect(unbounded({ type: 'array', items: { type: 'string', maxLength: 3 } }, 'tags')).toEqual(['tags']);
  });
});
