/**
 * docs/openapi.json is the committed wire contract that the four SDKs' wire-type tests read: it must
 * be exactly what the routes' schemas generate today, or an SDK could be checked against a stale shape.
 */
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { OPENAPI_PATH, renderOpenApi } from '../../../scripts/openapi.js';

it('docs/openapi.json is what the routes generate (run `npm run openapi` after a schema change)', async () => {
  const committed = readFileSync(OPENAPI_PATH, 'utf8');
  expect(committed === (await renderOpenApi()), 'docs/openapi.json is stale: run `npm run openapi`').toBe(
    true,
  );
});
