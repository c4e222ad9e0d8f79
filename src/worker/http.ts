/**
 * The worker's small HTTP face: /healthz (alive), /readyz (workers polling, Temporal reachable),
 * /metrics (our metrics followed by the Temporal SDK's own worker metrics), behind METRICS_TOKEN
 * when it is set, as the API's is.
 */
import { createServer, type Server } from 'node:http';
import { HTTP_TIMEOUT_DEFAULTS } from '../config/environment.js';
import { answerClientErrors } from '../http/client-errors.js';
import { applySocketTimeout, serverOptions, type HttpTimeouts } from '../http/server-timeouts.js';
import type { Logger } from '../observability/logger.js';
import { bearerMatches } from '../security/bearer-token.js';

export interface WorkerHttpOptions {
  host: string;
  port: number;
  logger: Logger;
  /** Resolves when Temporal answers and every worker runs; rejects with the reason otherwise. */
  ready: () => Promise<void>;
  /** Prometheus text of this process. */
  metrics: () => Promise<string>;
  /** When set, /metrics wants `Authorization: Bearer <token>` (METRICS_TOKEN). */
  metricsToken?: string | undefined;
  /** How long a client may take (src/http/server-timeouts.ts). @defaultValue HTTP_TIMEOUT_DEFAULTS */
  timeouts?: HttpTimeouts;
}

export async function startWorkerHttp(options: WorkerHttpOptions): Promise<Server> {
  const timeouts = options.timeouts ?? HTTP_TIMEOUT_DEFAULTS;
  const server = createServer(serverOptions(timeouts), (req, res) => {
    const send = (status: number, body: string, type = 'application/json', headers = {}) => {
      res.writeHead(status, { 'content-type': type, ...headers });
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
      const { metricsToken } = options;
      if (metricsToken !== undefined && !bearerMatches(req.headers.authorization, metricsToken)) {
        const message = 'send Authorization: Bearer <METRICS_TOKEN>';
        return send(
          401,
          JSON.stringify({ error: { code: 'UNAUTHENTICATED', message } }),
          'application/json',
          {
            'www-authenticate': 'Bearer realm="delayed-task-service"',
          },
        );
      }
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
  applySocketTimeout(server, timeouts);
  answerClientErrors(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  return server;
}
