/**
 * How this project runs the Temporal dev server, shared by the local launcher and the tests.
 */
import type { Connection } from '@temporalio/client';
import type { SearchAttributeType } from '@temporalio/common';
import proto, { type temporal } from '@temporalio/proto';
import { ALL_SEARCH_ATTRIBUTES } from '../shared/constants.js';

/** Server settings the service relies on; a production cluster sets the same in its dynamic config. */
export const DEV_SERVER_DYNAMIC_CONFIG: Readonly<Record<string, string | number | boolean>> = {
  // Priority of callbacks due together (activity priority keys 1..5) needs the priority matcher.
  'matching.useNewMatcher': true,
  // Priority order and rate limits hold per partition: one partition per task queue makes them exact.
  // A production cluster sets this for the callback queues (matching is per queue).
  'matching.numTaskqueueReadPartitions': 1,
  'matching.numTaskqueueWritePartitions': 1,
  // Bulk replay/cancel: a few batch jobs at once, at a pace that clears thousands of tasks quickly.
  'frontend.MaxConcurrentBatchOperationPerNamespace': 5,
  'worker.batcherRPS': 500,
  // The CLI turns this on so that attributes registered at run time are usable at once, at the price
  // of reading them from SQLite on every visibility write: it doubled the persistence calls per task
  // (32.6 to 14.2 in the benchmark's steady scenario). Ours are registered at startup with
  // `--search-attribute`, before the server answers; this is also a real cluster's default.
  'system.forceSearchAttributesCacheRefreshOnRead': false,
};

/**
 * SQLite pragmas of the dev server. WAL with synchronous=NORMAL survives a crash of the server
 * process (not of the machine's power) and took task starts from 22/s to 93/s on 2 cores.
 */
export const DEV_SERVER_SQLITE_PRAGMAS: readonly string[] = ['journal_mode=wal', 'synchronous=normal'];

/** `--sqlite-pragma` arguments for `temporal server start-dev`. */
export function sqlitePragmaArgs(pragmas: readonly string[] = DEV_SERVER_SQLITE_PRAGMAS): string[] {
  return pragmas.flatMap((pragma) => ['--sqlite-pragma', pragma]);
}

/**
 * The `temporal` CLI's name of each search attribute type (`--type` of `operator search-attribute
 * create`, `--search-attribute NAME=TYPE` of `server start-dev`). Every type has one: a new type of the
 * SDK does not compile until it is named here.
 */
export const CLI_SEARCH_ATTRIBUTE_TYPES: Readonly<Record<SearchAttributeType, string>> = {
  KEYWORD: 'Keyword',
  KEYWORD_LIST: 'KeywordList',
  TEXT: 'Text',
  INT: 'Int',
  DOUBLE: 'Double',
  BOOL: 'Bool',
  DATETIME: 'Datetime',
};

/**
 * The project's search attributes as the `temporal` CLI and the deploy scripts spell them:
 * `Name:Type`, in `ALL_SEARCH_ATTRIBUTES` order. `deploy/temporal/register-search-attributes.sh`
 * lists exactly these (test/deploy/compose.test.ts diffs them).
 */
export function cliSearchAttributes(): string[] {
  return ALL_SEARCH_ATTRIBUTES.map((key) => `${key.name}:${CLI_SEARCH_ATTRIBUTE_TYPES[key.type]}`);
}

/** `--search-attribute` values for `temporal server start-dev`. */
export function searchAttributeArgs(): string[] {
  return cliSearchAttributes().flatMap((spec) => ['--search-attribute', spec.replace(':', '=')]);
}

/** `--dynamic-config-value` arguments for `temporal server start-dev`; `overrides` replace single keys. */
export function dynamicConfigArgs(
  overrides: Readonly<Record<string, string | number | boolean>> = {},
): string[] {
  return Object.entries({ ...DEV_SERVER_DYNAMIC_CONFIG, ...overrides }).flatMap(([key, value]) => [
    '--dynamic-config-value',
    `${key}=${JSON.stringify(value)}`,
  ]);
}

/** The project's search attributes as `addSearchAttributes` takes them: name to indexed value type. */
export function searchAttributeTypes(): Record<string, temporal.api.enums.v1.IndexedValueType> {
  const { IndexedValueType } = proto.temporal.api.enums.v1;
  return Object.fromEntries(
    ALL_SEARCH_ATTRIBUTES.map((key) => [
      key.name,
      IndexedValueType[`INDEXED_VALUE_TYPE_${key.type}` as keyof typeof IndexedValueType],
    ]),
  );
}

/**
 * Registers the project's search attributes that a server lacks and returns their names. A dev
 * database created by an earlier version of the service (before `Owner`, say) keeps the attributes it
 * was created with, whatever `--search-attribute` says on a later start.
 */
export async function addMissingSearchAttributes(
  connection: Connection,
  namespace: string,
): Promise<string[]> {
  const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
  const missing = Object.entries(searchAttributeTypes()).filter(
    ([name]) => customAttributes?.[name] === undefined,
  );
  if (missing.length === 0) return [];
  await connection.operatorService.addSearchAttributes({
    namespace,
    searchAttributes: Object.fromEntries(missing),
  });
  return missing.map(([name]) => name);
}
