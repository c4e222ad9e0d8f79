/**
 * Recorded workflow histories: test/fixtures/histories/<shape>/<scenario>.json, one directory per
 * shape the workflow has had (v1, v2...), each with a manifest saying what each task went through.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const HISTORIES_DIR = join(import.meta.dirname, '..', 'fixtures', 'histories');
/** Scenario name → what the task went through, in each shape's directory. */
export const MANIFEST = 'manifest.json';

export function shapeDir(shape: string): string {
  return join(HISTORIES_DIR, shape);
}

export interface HistoryFixture {
  shape: string;
  scenario: string;
  /** `temporal workflow show -o json` output. */
  history: { events: Array<{ eventType: string }> };
  /** The history does not end with the run closing: the task still sleeps or waits to retry. */
  open: boolean;
}

const CLOSING =
  /^EVENT_TYPE_WORKFLOW_EXECUTION_(COMPLETED|FAILED|CANCELED|TERMINATED|TIMED_OUT|CONTINUED_AS_NEW)$/;

export function recordedShapes(): string[] {
  if (!existsSync(HISTORIES_DIR)) return [];
  return readdirSync(HISTORIES_DIR)
    .filter((name) => /^v\d+$/.test(name))
    .sort();
}

/** The manifest of a shape: every scenario recorded for it. */
export function manifestOf(shape: string): Record<string, string> {
  return JSON.parse(readFileSync(join(shapeDir(shape), MANIFEST), 'utf8')) as Record<string, string>;
}

/** Every history file of a shape, manifest or not. */
export function historyFiles(shape: string): string[] {
  return readdirSync(shapeDir(shape))
    .filter((file) => file.endsWith('.json') && file !== MANIFEST)
    .map((file) => file.slice(0, -'.json'.length))
    .sort();
}

export function loadFixture(shape: string, scenario: string): HistoryFixture {
  const history = JSON.parse(
    readFileSync(join(shapeDir(shape), `${scenario}.json`), 'utf8'),
  ) as HistoryFixture['history'];
  const last = history.events.at(-1)?.eventType ?? '';
  return { shape, scenario, history, open: !CLOSING.test(last) };
}
