/**
 * The peer's worker process: a BullMQ Worker that POSTs each due job's callback and throws on a
 * non-2xx answer, so BullMQ retries it with its exponential backoff (1 s, 2 s, 4 s...).
 *
 * Env: REDIS_PORT, QUEUE_NAME, CONCURRENCY. Sends 'ready' over IPC once connected.
 */
import { Worker } from 'bullmq';
import { callbackAgent, postCallback, type CallbackTask } from './callback.js';

const agent = callbackAgent();
const worker = new Worker<CallbackTask>(
  process.env.QUEUE_NAME ?? 'bench',
  async (job) => {
    const status = await postCallback(agent, job.data, job.attemptsMade + 1);
    if (status < 200 || status >= 300) throw new Error(`callback answered HTTP ${status}`);
  },
  {
    connection: { host: '127.0.0.1', port: Number(process.env.REDIS_PORT), maxRetriesPerRequest: null },
    concurrency: Number(process.env.CONCURRENCY ?? 100),
  },
);
worker.on('error', (err) => console.error('bullmq worker error', err));
await worker.waitUntilReady();
process.send?.('ready');

process.on('SIGTERM', () => {
  void worker
    .close()
    .then(() => agent.close())
    .then(() => process.exit(0));
});
