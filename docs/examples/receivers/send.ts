/**
 * Sends one callback to every receiver at once, signed as the service signs it (the same body,
 * headers and Standard Webhooks signature, from src/security/webhook-signature.ts), and prints each
 * answer: `node --import tsx docs/examples/receivers/send.ts PORT...` with `WEBHOOK_SECRET` set.
 * The task id is new on each run (`TASK_ID` to choose it), so its `webhook-id` is too. A `503`
 * (another replica holds the claim) is sent again after a second, as the service retries it after
 * `Retry-After`, until the receiver answers something else.
 */
import { randomUUID } from 'node:crypto';
import { signWebhook, webhookId } from '../../../src/security/webhook-signature.js';

const secret = process.env.WEBHOOK_SECRET;
const ports = process.argv.slice(2);
if (!secret || ports.length === 0) throw new Error('usage: WEBHOOK_SECRET=whsec_... send.ts PORT...');

const taskId = process.env.TASK_ID ?? `order-${randomUUID().slice(0, 8)}-close`;
const body = JSON.stringify({
  taskId,
  taskType: 'order.close_timeout',
  payload: { orderId: taskId.split('-')[1] },
  payloadVersion: 1,
  executeAt: new Date().toISOString(),
  attempt: 1,
  traceId: null,
});
const id = webhookId(taskId); // owner default: the workflow id is the task id

async function deliver(port: string): Promise<string> {
  const answers: string[] = [];
  for (;;) {
    const timestamp = Math.floor(Date.now() / 1000);
    const response = await fetch(`http://127.0.0.1:${port}/callbacks`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'idempotency-key': taskId,
        'x-task-id': taskId,
        'x-task-type': 'order.close_timeout',
        'x-task-attempt': '1',
        'webhook-id': id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signWebhook([secret!], id, timestamp, body),
      },
      body,
    });
    answers.push(`${response.status} ${(await response.text()).trim()}`);
    if (response.status !== 503) return `:${port} ${answers.join(', then ')}`;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

console.log(`task ${taskId}, webhook-id ${id}`);
for (const line of await Promise.all(ports.map(deliver))) console.log(line);
