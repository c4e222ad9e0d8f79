/**
 * The worker's small HTTP face: /healthz (alive), /readyz (workers polling, Temporal reachable),
 * /metrics (our metrics followed by the Temporal SDK's own worker metrics).
 */
import { createServer, type Server } from 'node:http';
import type { Logger } from '../observability/logger.js';

export interface WorkerHttpOptions {
  host: string;
  port: number;
  logger: Logger;
  /** Resolves when Temporal answers and every worker runs; rejects with the reason otherwise. */
  ready: () => Promise<void>;
  /** Prometheus text of this process. */
  metrics: () => Promise<string>;
}

export async function startWorkerHttp(options: WorkerHttpOptions): Promise<Server> {
  const server = createServer((req, res) => {
    const send = (status: number, body: string, type = 'application/json') => {
      res.writeHead(status, { 'content-type': type });
      res.end(body);
    };
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET')
      return send(405, JSON.stringify({ error: { code: 'METHOD_NOT_ALLOWED', message: 'GET only' } }));
    if (path === '/healthz') return send(200, JSON.stringify({ status: 'ok' }));
    if (path === '/readyz') {
      options.ready().then(
        () => send(200, JSON.stringify({ status: 'ready' })),
        (err: unknown) =>
          send(503, JSON.stringify({ status: 'unavailable', reason: (err as Error).message })),
      );
      return;
    }
    if (path === '/metrics') {
      options.metrics().then(
        (text) => send(200, text, 'text/plain; version=0.0.4; charset=utf-8'),
        (err: unknown) => {
          options.logger.error({ err }, 'metrics scrape failed');
          send(500, '# metrics unavailable\n', 'text/plain');
        },
      );
      return;
    }
    send(404, JSON.stringify({ error: { code: 'NOT_FOUND', message: `no route ${path}` } }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  return server;
}
