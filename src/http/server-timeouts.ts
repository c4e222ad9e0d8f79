/**
 * How long an HTTP server waits for a client, for every server this project runs (the API, its
 * metrics port, the worker's health and metrics): a client that drips its request a byte at a time,
 * or opens a connection and sends nothing, is cut off instead of holding a socket for minutes.
 */
import type { ServerOptions } from 'node:http';
import type { Config } from '../config/environment.js';

export type HttpTimeouts = Pick<
  Config['http'],
  'requestTimeoutMs' | 'headersTimeoutMs' | 'keepAliveTimeoutMs' | 'connectionTimeoutMs'
>;

/**
 * Options of `http.createServer` for `timeouts`. Node looks for requests past their headers or
 * request timeout only every `connectionsCheckingInterval` (30 s by default, so a 10 s limit held
 * for up to 40 s): checked here at least twice per headers timeout, and at least once a second.
 */
export function serverOptions(timeouts: HttpTimeouts): ServerOptions {
  return {
    requestTimeout: timeouts.requestTimeoutMs,
    headersTimeout: timeouts.headersTimeoutMs,
    keepAliveTimeout: timeouts.keepAliveTimeoutMs,
    connectionsCheckingInterval: Math.min(1_000, Math.floor(timeouts.headersTimeoutMs / 2)),
  };
}

/** The idle-socket limit, which `createServer` takes no option for. */
export function applySocketTimeout<T extends { setTimeout(ms: number): unknown }>(
  server: T,
  timeouts: HttpTimeouts,
): T {
  server.setTimeout(timeouts.connectionTimeoutMs);
  return server;
}
