/**
 * Writes conformance/client/*.json, conformance/callbacks/*.json and conformance/pull/*.json
 * reproducibly (fixed secrets, ids and timestamps). Callback signatures come from the published `standardwebhooks` package, an
 * implementation independent of every SDK here. Run: `npx tsx conformance/generate.ts`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { format } from 'prettier';
import { receiverCases, verifyCases } from './callback-vectors.js';
import { batch } from './client-vectors/batch.js';
import { checks } from './client-vectors/checks.js';
import { create } from './client-vectors/create.js';
import { errors } from './client-vectors/errors.js';
import { operations } from './client-vectors/operations.js';
import { retries } from './client-vectors/retries.js';
import { schedules } from './client-vectors/schedules.js';
import { times } from './client-vectors/times.js';
import { shell } from './pull/shell.js';
import { wire } from './pull/wire.js';

const here = fileURLToPath(new URL('.', import.meta.url));

/** Written as Prettier formats it, so `npm run lint` and a rerun agree byte for byte. */
async function write(folder: string, name: string, cases: unknown[]): Promise<void> {
  mkdirSync(`${here}${folder}`, { recursive: true });
  const text = await format(JSON.stringify(cases), { parser: 'json', printWidth: 110 });
  writeFileSync(`${here}${folder}/${name}.json`, text);
}

await write('client', 'create', create);
await write('client', 'batch', batch);
await write('client', 'checks', checks);
await write('client', 'operations', operations);
await write('client', 'retries', retries);
await write('client', 'times', times);
await write('client', 'errors', errors);
await write('client', 'schedules', schedules);

// ---------------------------------------------------------------- callback vectors

await write('callbacks', 'verify', verifyCases);
await write('callbacks', 'receiver', receiverCases);

// ---------------------------------------------------------------- pull delivery

await write('pull', 'wire-vectors', wire);
await write('pull', 'shell-vectors', shell);
