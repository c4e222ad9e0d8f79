/**
 * The callback as the service sends it (src/activities/callback.ts): same body and headers, POSTed with
 * a keep-alive undici pool. Shared by the peer (BullMQ worker) and the floor (setTimeout).
 */
import { Agent, request } from 'undici';
import type { CallbackBody } from '../../src/activities/callback.js';

export interface CallbackTask {
  taskId: string;
  taskType: string;
  payload: Record<string, unknown>;
  /** RFC 3339 UTC with milliseconds. */
  executeAt: string;
  callbackUrl: string;
}

/** Keep-alive pool like the service's own (createCallbackDispatcher). */
export function callbackAgent(): Agent {
  return new Agent({ keepAliveTimeout: 30_000, keepAliveMaxTimeout: 120_000, connections: 256 });
}

/** POSTs one attempt; resolves with the status code (throws only on network errors). */
export async function postCallback(
  agent: Agent,
  task: CallbackTask,
  attempt: number,
  timeoutMs = 30_000,
): Promise<number> {
  const body: CallbackBody = {
    taskId: task.taskId,
    taskType: task.taskType,
    payload: task.payload,
    payloadVersion: 1,
    executeAt: task.executeAt,
    attempt,
    traceId: null,
  };
  const response = await request(task.callbackUrl, {
    method: 'POST',
    dispatcher: agent,
    headers: {
      'content-type': 'application/json',
      'idempotency-key': task.taskId,
      'x-task-id': task.taskId,
      'x-task-type': task.taskType,
      'x-task-attempt': String(attempt),
    },
    body: JSON.stringify(body),
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
  await response.body.dump();
  return response.statusCode;
}
