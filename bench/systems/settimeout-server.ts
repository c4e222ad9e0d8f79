/**
 * The floor: one process, one `setTimeout` per task, the same callback and retry schedule as the
 * service (1 s doubling), and no durability at all. Tasks arrive as `POST /tasks` with a BenchTask body.
 *
 * Run as `node settimeout-server.js <port>`; sends 'ready' over IPC once listening.
 */
import { createServer } from 'node:http';
import type { BenchTask } from './system.js';
import { callbackAgent, postCallback, type CallbackTask } from './callback.js';

const agent = callbackAgent();
const pending = new Map<string, NodeJS.Timeout>();

function schedule(task: CallbackTask, maxRetries: number, attempt: number, atMs: number): void {
  const timer = setTimeout(() => {
    postCallback(agent, task, attempt).then(
      (status) => retryOrFinish(task, maxRetries, attempt, status >= 200 && status < 300),
      () => retryOrFinish(task, maxRetries, attempt, false),
    );
  }, atMs - Date.now());
  pending.set(task.taskId, timer);
}

function retryOrFinish(task: CallbackTask, maxRetries: number, attempt: number, succeeded: boolean): void {
  if (succeeded || attempt > maxRetries) {
    pending.delete(task.taskId);
    return;
  }
  schedule(task, maxRetries, attempt + 1, Date.now() + 1000 * 2 ** (attempt - 1));
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    if (req.method !== 'POST' || req.url !== '/tasks') {
      res.writeHead(404).end();
      return;
    }
    const task = JSON.parse(Buffer.concat(chunks).toString('utf8')) as BenchTask;
    const created = !pending.has(task.taskId);
    if (created) {
      const { taskId, taskType, payload, callbackUrl } = task;
      const executeAt = new Date(task.executeAtMs).toISOString();
      schedule({ taskId, taskType, payload, callbackUrl, executeAt }, task.maxRetries, 1, task.executeAtMs);
    }
    res
      .writeHead(created ? 201 : 200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ taskId: task.taskId }));
  });
});
server.keepAliveTimeout = 120_000;
server.headersTimeout = 125_000;
server.listen(Number(process.argv[2]), '127.0.0.1', () => process.send?.('ready'));
process.on('SIGTERM', () => {
  for (const timer of pending.values()) clearTimeout(timer);
  server.close(() => void agent.close().then(() => process.exit(0)));
  server.closeAllConnections();
});
