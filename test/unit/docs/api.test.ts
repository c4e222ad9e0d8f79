/**
 * docs/api.md names every field of a task's create body and every filter of the task list, as the
 * contract has them (src/contract/tasks.ts): a field added to the contract fails here until the
 * manual says what it is (docs/development.md, "Adding a task field").
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CreateTaskBodySchema, ListTasksQuerySchema } from '../../../src/contract/tasks.js';

const manual = readFileSync('docs/api.md', 'utf8');

describe('docs/api.md', () => {
  it('names every query parameter of the task list in its route, and no other', () => {
    const route = /`GET \/api\/v1\/tasks\?([^`]*)`/.exec(manual)?.[1] ?? '';
    const named = route.split('&').map((pair) => pair.replace(/=$/, ''));
    expect(named.sort(), 'the `GET /api/v1/tasks?...` row of docs/api.md').toEqual(
      Object.keys(ListTasksQuerySchema.properties).sort(),
    );
  });

  it('says what each field of the create body is, in its **Create body:** paragraph', () => {
    const at = manual.indexOf('**Create body:**');
    const paragraph = manual.slice(at, manual.indexOf('\n\n', at));
    const unnamed = Object.keys(CreateTaskBodySchema.properties).filter(
      (field) => !paragraph.includes(`\`${field}\``),
    );
    expect(unnamed, 'create body fields the **Create body:** paragraph of docs/api.md does not name').toEqual(
      [],
    );
  });
});
