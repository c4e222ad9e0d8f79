/**
 * Header secrets: static headers a task type's receiver needs (`Authorization`, an API key), named
 * in the policy file with the environment variable or file that holds each value. The worker reads
 * the values when it sends, so they are never part of a task, of Temporal's history or of a log line.
 */
import { readFileSync } from 'node:fs';
import { envSecret } from '../config.js';

/** Where a header's value comes from. */
export type HeaderSource = { env: string } | { file: string };

/** An HTTP header name (RFC 9110 token). */
export const HEADER_NAME_PATTERN = "^[A-Za-z0-9!#$%&'*+.^_`|~-]+$";

/** Headers the callback sets itself: a policy may not replace them. */
const RESERVED = new Set([
  'content-type',
  'content-length',
  'host',
  'transfer-encoding',
  'connection',
  'user-agent',
  'idempotency-key',
  'traceparent',
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
]);

/** What is wrong with a policy's headers; empty when nothing is. */
export function headerProblems(headers: Record<string, HeaderSource>): string[] {
  return Object.keys(headers)
    .filter((name) => RESERVED.has(name.toLowerCase()) || name.toLowerCase().startsWith('x-task-'))
    .map((name) => `headers.${name} is set by the callback itself and cannot be configured`);
}

/** A header secret that cannot be read now (unset variable, missing file): worth a later attempt. */
export class HeaderSecretError extends Error {
  override name = 'HeaderSecretError';
}

/** The headers' values, read now; the error names the variable or file, never a value. */
export function resolveHeaders(headers: Readonly<Record<string, HeaderSource>>): Record<string, string> {
  const resolved: Record<string, string> = {};
  for (const [name, source] of Object.entries(headers)) {
    let value: string | undefined;
    if ('env' in source) {
      value = envSecret(source.env);
      if (value === undefined)
        throw new HeaderSecretError(`header ${name}: environment variable ${source.env} is not set`);
    } else {
      try {
        value = readFileSync(source.file, 'utf8').trim();
      } catch (err) {
        throw new HeaderSecretError(
          `header ${name}: cannot read ${source.file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
        );
      }
    }
    if (/[\r\n]/.test(value)) throw new HeaderSecretError(`header ${name}: the value spans several lines`);
    resolved[name.toLowerCase()] = value;
  }
  return resolved;
}
