/**
 * File access shared by the deployment tests: paths from the repository root, YAML and JSON parsing.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Absolute path of a file given relative to the repository root. */
export function repoPath(relative: string): string {
  return resolve(REPO_ROOT, relative);
}

export function repoFileExists(relative: string): boolean {
  return existsSync(repoPath(relative));
}

export function readRepoText(relative: string): string {
  return readFileSync(repoPath(relative), 'utf8');
}

/** Parses YAML with `<<` merge keys, as Docker Compose does. */
export function readRepoYaml(relative: string): unknown {
  return parse(readRepoText(relative), { merge: true });
}

export function readRepoJson(relative: string): unknown {
  return JSON.parse(readRepoText(relative)) as unknown;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
