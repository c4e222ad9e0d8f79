/**
 * The callback receiver: one loopback HTTP server, in its own process, that every system calls back.
 * It records each arrival (task, attempt, due time from the body, arrival time) per benchmark run.
 *
 *   POST /cb/<run>/<failFirst>  a callback; answers 500 to the first `failFirst` arrivals of a task, then 200
 *   GET  /runs/<run>/count      {"arrivals": n}
 *   GET  /runs/<run>            {"arrivals": [[taskId, attempt, dueMs, arrivedMs, status], ...]}
 *   DELETE /runs/<run>          forgets a run
 *
 * Run as `node receiver.js <port>`; sends 'ready' over IPC once listening.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { ArrivalRow } from './receiver-client.js';

const runs = new Map<string, ArrivalRow[]>();
const seen = new Map<string, number>();

function reply(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function onCallback(req: IncomingMessage, res: ServerResponse, run: string, failFirst: number): void {
  const arrivedMs = Date.now();
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    let body: { taskId?: string; attempt?: number; executeAt?: string };
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof body;
    } catch {
      return reply(res, 400, { error: 'body is not JSON' });
    }
    const taskId = String(body.taskId ?? req.headers['idempotency-key'] ?? '');
    const attempt = Number(req.headers['x-task-attempt'] ?? body.attempt ?? 0);
    const key = `${run}\u0000${taskId}`;
    const count = (seen.get(key) ?? 0) + 1;
    seen.set(key, count);
    const status = count <= failFirst ? 500 : 200;
    const rows = runs.get(run) ?? [];
    runs.set(run, rows);
    rows.push([taskId, attempt, Date.parse(body.executeAt ?? ''), arrivedMs, status]);
    reply(res, status, {});
  });
}

const server = createServer((req, res) => {
  const parts = (req.url ?? '/').split('?')[0]!.split('/').filter(Boolean);
  const [root, run, extra] = parts;
  if (req.method === 'POST' && root === 'cb' && run) return onCallback(req, res, run, Number(extra ?? 0));
  if (req.method === 'GET' && root === 'health') return reply(res, 200, { ok: true });
  if (root === 'runs' && run) {
    if (req.method === 'DELETE') {
      runs.delete(run);
      for (const key of seen.keys()) if (key.startsWith(`${run}\u0000`)) seen.delete(key);
      return reply(res, 200, {});
    }
    const rows = runs.get(run) ?? [];
    if (req.method === 'GET' && extra === 'count') return reply(res, 200, { arrivals: rows.length });
    if (req.method === 'GET' && extra === undefined) return reply(res, 200, { arrivals: rows });
  }
  reply(res, 404, { error: 'no such route' });
});
// Callers keep connections alive for seconds; do not close them under their feet.
server.keepAliveTimeout = 120_000;
server.headersTimeout = 125_000;
server.listen(Number(process.argv[2]), '127.0.0.1', () => process.send?.('ready'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
