/**
 * Structured JSON logs (pino) for both processes, and the adapter that routes the Temporal SDK's
 * logs (worker, workflow and activity loggers) into the same stream.
 */
import type { LogLevel as TemporalLogLevel, LogMetadata, Logger as TemporalLogger } from '@temporalio/common';
import { pino, type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from '../config/environment.js';

export type { Logger } from 'pino';

/**
 * Fields that never reach a log line as they are: credentials and signatures are replaced, callback
 * URLs lose their query string and any user:pass (a partner may have put a token there).
 */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'headers.authorization',
  'headers["x-api-key"]',
  'headers["webhook-signature"]',
  '*.headers.authorization',
  '*.headers["x-api-key"]',
  '*.headers["webhook-signature"]',
  'authorization',
  'apiKey',
  '*.apiKey',
  'secret',
  '*.secret',
  'callbackUrl',
  '*.callbackUrl',
  // Request URLs: a client may put its key in the query string (`?api_key=dts_...`).
  'req.url',
  'url',
];

/** A URL without its query string and credentials; the part an operator needs to tell callbacks apart. */
export function redactUrl(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    const url = new URL(value, 'http://relative.invalid');
    const credentials = url.username !== '' || url.password !== '';
    url.username = '';
    url.password = '';
    const query = url.search !== '' ? '?[redacted]' : '';
    url.search = '';
    url.hash = '';
    const text = value.startsWith('/') ? `${url.pathname}` : url.toString();
    return `${credentials && !value.startsWith('/') ? text.replace('://', '://[redacted]@') : text}${query}`;
  } catch {
    return '[redacted]';
  }
}

function censor(value: unknown, path: string[]): unknown {
  const field = path[path.length - 1];
  return field === 'callbackUrl' || field === 'url' ? redactUrl(value) : '[redacted]';
}

/** The processes' logger; `destination` (stdout by default) lets tests read what it writes. */
export function createLogger(level: LogLevel, name: string, destination?: DestinationStream): Logger {
  const options = {
    level,
    name,
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: REDACTED_PATHS, censor },
  };
  return destination ? pino(options, destination) : pino(options);
}

const LEVELS: Record<TemporalLogLevel, 'trace' | 'debug' | 'info' | 'warn' | 'error'> = {
  TRACE: 'trace',
  DEBUG: 'debug',
  INFO: 'info',
  WARN: 'warn',
  ERROR: 'error',
};

/**
 * Temporal's logger interface over pino. Workflow and activity log calls carry workflowId (= taskId)
 * and our own taskId, taskType and traceId fields in `meta`; they become top-level JSON fields.
 */
export class PinoTemporalLogger implements TemporalLogger {
  constructor(private readonly logger: Logger) {}

  log(level: TemporalLogLevel, message: string, meta?: LogMetadata): void {
    const fields: Record<string, unknown> = { ...meta };
    if (fields.taskId === undefined && typeof fields.workflowId === 'string')
      fields.taskId = fields.workflowId;
    // pino serializes errors under `err`; the SDK passes them as `error`.
    if (fields.error instanceof Error) {
      fields.err = fields.error;
      delete fields.error;
    }
    this.logger[LEVELS[level]](fields, message);
  }
  trace(message: string, meta?: LogMetadata): void {
    this.log('TRACE', message, meta);
  }
  debug(message: string, meta?: LogMetadata): void {
    this.log('DEBUG', message, meta);
  }
  info(message: string, meta?: LogMetadata): void {
    this.log('INFO', message, meta);
  }
  warn(message: string, meta?: LogMetadata): void {
    this.log('WARN', message, meta);
  }
  error(message: string, meta?: LogMetadata): void {
    this.log('ERROR', message, meta);
  }
}

/** Runs a start-up step; on failure logs its message as fatal and exits 1 (no stack for a config error). */
export function orExit<T>(logger: Logger, step: () => T): T {
  try {
    return step();
  } catch (err) {
    logger.fatal((err as Error).message);
    process.exit(1);
  }
}
