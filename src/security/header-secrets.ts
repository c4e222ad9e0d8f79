/**
 * Header secrets: static headers a task type's receiver needs (`Authorization`, an API key), named
 * in the policy file with the environment variable or file that holds each value. The worker reads
 * the values when it sends (`HeaderSecrets`), so they are never part of a task, of Temporal's history or of a log line.
 */
import { readFile, stat } from 'node:fs/promises';

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

/** How long a file's value is trusted before the file is looked at again (one `stat`). */
const RECHECK_MS = 1_000;

interface FileEntry {
  value: string;
  /** What the file was when read: a change of any of these reads it again. */
  version: string;
  checkedAt: number;
}

/**
 * The values of header secrets, for the send path: environment variables through the reader it is
 * given (config stays the only module that reads the environment), files read asynchronously and
 * cached, looked at again (one `stat`) at most once a second and re-read when they change, so a
 * rotated secret is picked up without a restart and an attempt costs no file read.
 */
export class HeaderSecrets {
  private readonly files = new Map<string, FileEntry>();

  constructor(
    private readonly readEnv: (name: string) => string | undefined,
    private readonly now: () => number = Date.now,
  ) {}

  /** The headers' values; the error names the variable or file, never a value. */
  async resolve(headers: Readonly<Record<string, HeaderSource>>): Promise<Record<string, string>> {
    // No prototype: a header named `__proto__` or `constructor` is a header like any other.
    const resolved = Object.create(null) as Record<string, string>;
    for (const [name, source] of Object.entries(headers)) {
      const value = 'env' in source ? this.fromEnv(name, source.env) : await this.fromFile(name, source.file);
      if (/[\r\n]/.test(value)) throw new HeaderSecretError(`header ${name}: the value spans several lines`);
      resolved[name.toLowerCase()] = value;
    }
    return resolved;
  }

  private fromEnv(header: string, variable: string): string {
    const value = this.readEnv(variable);
    if (value === undefined) {
      throw new HeaderSecretError(`header ${header}: environment variable ${variable} is not set`);
    }
    return value;
  }

  private async fromFile(header: string, file: string): Promise<string> {
    const cached = this.files.get(file);
    const now = this.now();
    if (cached && now - cached.checkedAt < RECHECK_MS) return cached.value;
    try {
      const info = await stat(file);
      const version = `${info.ino}:${info.size}:${info.mtimeMs}`;
      if (cached?.version === version) {
        cached.checkedAt = now;
        return cached.value;
      }
      const value = (await readFile(file, 'utf8')).trim();
      this.files.set(file, { value, version, checkedAt: now });
      return value;
    } catch (err) {
      this.files.delete(file);
      throw new HeaderSecretError(
        `header ${header}: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
      );
    }
  }
}
