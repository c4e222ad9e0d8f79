/**
 * The stores' packaging: the main entry and the receive path import neither ioredis nor pg (those
 * are optional peers of `./redis` and `./pg` only), and schema.sql ships what `migrate()` runs.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { IDEMPOTENCY_SCHEMA } from '../../src/stores/pg.js';

const src = new URL('../../src/', import.meta.url);

describe('stores packaging', () => {
  it('no module outside src/stores imports ioredis or pg', () => {
    const files = readdirSync(src, { recursive: true, encoding: 'utf8' }).filter(
      (file) => file.endsWith('.ts') && !file.startsWith('stores'),
    );
    expect(files).toContain('index.ts');
    for (const file of files) {
      expect(readFileSync(new URL(file, src), 'utf8'), file).not.toMatch(/from '(ioredis|pg)'/);
    }
  });

  it('schema.sql is the statement migrate() runs', () => {
    const schema = readFileSync(new URL('../schema.sql', src), 'utf8');
    expect(schema).toContain(IDEMPOTENCY_SCHEMA);
  });
});
