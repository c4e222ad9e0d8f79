/**
 * Signed callbacks, checked with implementations we did not write: the `standardwebhooks` packages
 * for Node (npm) and Python (PyPI). Every attempt verifies; while secrets rotate both verify;
 * a tampered body or timestamp is rejected; `webhook-id` stays the same across attempts and replays.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTaskSpec } from '../../src/tasks/input.js';
import { taskStartOptions } from '../../src/tasks/start-options.js';
import { CallbackGuard } from '../../src/security/callback-guard.js';
import { TASK_WORKFLOW_TYPE } from '../../src/shared/constants.js';
import { mintWebhookSecret, webhookId } from '../../src/security/webhook-signature.js';
import { Harness } from '../helpers/harness.js';
import { TEST_WEBHOOK_SECRET } from '../helpers/test-env.js';
import { ensurePythonWebhooks, verifyWithPython, type VerifyCase } from '../helpers/python-webhooks.js';
import type { ReceivedCallback } from '../helpers/receiver.js';
import { uniqueId, waitForStatus } from '../helpers/tasks.js';
import { waitFor } from '../helpers/wait.js';
import { typeQueue } from '../../src/shared/task-queues.js';

const OLD_DEFAULT = mintWebhookSecret();
const ORDERS_NEW = mintWebhookSecret();
const ORDERS_OLD = mintWebhookSecret();
const UNRELATED = mintWebhookSecret();

let h: Harness;
let secretsFile: string;

beforeAll(async () => {
  secretsFile = join(mkdtempSync(join(tmpdir(), 'webhook-secrets-')), 'secrets.json');
  writeFileSync(secretsFile, JSON.stringify({ owners: { orders: [ORDERS_NEW, ORDERS_OLD] } }));
  await ensurePythonWebhooks();
  h = await Harness.start({
    // The default owner mid-rotation: the current secret first, the old one still signing.
    env: { WEBHOOK_SECRET: `${TEST_WEBHOOK_SECRET} ${OLD_DEFAULT}`, WEBHOOK_SECRETS_FILE: secretsFile },
  });
}, 180_000);

afterAll(async () => {
  await h?.stop();
});

/**
 * Starts a task of `owner` directly (workflow id <owner>/<taskId>), due now; returns its task id.
 * `asBefore`: its input as the API wrote it before keys were owner-scoped (no idempotencyKey).
 */
async function startOwned(owner: string, taskId: string, asBefore = false): Promise<string> {
  const taskType = h.taskType();
  const policy = h.policies.forType(taskType)!;
  const { spec, fingerprint } = buildTaskSpec(
    { taskType, taskId, payload: { n: 1 }, delaySeconds: 0, callbackUrl: h.receiver.url },
    {
      now: Date.now(),
      limits: h.config.limits,
      policy,
      callbackTaskQueue: typeQueue(h.taskQueue, policy.name),
      newTaskId: () => taskId,
      guard: new CallbackGuard(h.config.callbacks),
      owner,
    },
  );
  if (asBefore) delete spec.idempotencyKey;
  await h.client.workflow.start(
    TASK_WORKFLOW_TYPE,
    taskStartOptions(spec, fingerprint, h.taskQueue, 'REJECT_DUPLICATE'),
  );
  return taskId;
}

function headersOf(call: ReceivedCallback): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
    headers[name] = String(call.headers[name] ?? '');
  }
  return headers;
}

function verifyWithNode(secret: string, body: string, headers: Record<string, string>): string {
  try {
    new Webhook(secret).verify(body, headers);
    return 'ok';
  } catch (err) {
    return (err as Error).name;
  }
}

/** The same cases through both libraries; returns Node's and Python's answers side by side. */
async function verifyBoth(cases: VerifyCase[]): Promise<{ node: string[]; python: string[] }> {
  return {
    node: cases.map((c) => verifyWithNode(c.secret, c.body, c.headers)),
    python: await verifyWithPython(cases),
  };
}

describe('signed callbacks', () => {
  it('carry Standard Webhooks headers that both reference libraries verify, on every attempt', async () => {
    const taskId = uniqueId('signed.task');
    h.receiver.script(taskId, [{ status: 503 }, { status: 200 }]);
    const created = await h.create({
      taskType: h.taskType(),
      taskId,
      payload: { orderId: 'A-1', note: 'ünïcode ✓' },
      delaySeconds: 0,
      callbackUrl: h.receiver.url,
    });
    expect(created.status).toBe(201);
    const calls = await h.receiver.waitForCalls(taskId, 2);
    await waitForStatus(h, taskId, 'SUCCEEDED');

    const ids = calls.map((call) => call.headers['webhook-id']);
    // A task id may contain '.', which the spec forbids in an id: the id is a digest of it.
    expect(ids[0]).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(new Set(ids).size).toBe(1);
    for (const call of calls) {
      expect(call.headers['idempotency-key']).toBe(taskId);
      expect(call.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=* v1,[A-Za-z0-9+/]+=*$/);
      expect(Math.abs(Number(call.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
    }
    const cases = calls.flatMap((call) =>
      [TEST_WEBHOOK_SECRET, OLD_DEFAULT].map((secret) => ({
        secret,
        body: call.raw,
        headers: headersOf(call),
      })),
    );
    expect(await verifyBoth(cases)).toEqual({
      node: ['ok', 'ok', 'ok', 'ok'],
      python: ['ok', 'ok', 'ok', 'ok'],
    });
  });

  it('are rejected by both libraries when the body, the timestamp or the secret is wrong', async () => {
    const taskId = uniqueId('tamper');
    await h.create({
      taskType: h.taskType(),
      taskId,
      payload: { amount: 100 },
      delaySeconds: 0,
      callbackUrl: h.receiver.url,
    });
    const [call] = await h.receiver.waitForCalls(taskId, 1);
    const headers = headersOf(call!);
    const cases: VerifyCase[] = [
      { secret: TEST_WEBHOOK_SECRET, body: call!.raw.replace('"amount":100', '"amount":900'), headers },
      {
        secret: TEST_WEBHOOK_SECRET,
        body: call!.raw,
        headers: { ...headers, 'webhook-timestamp': String(Number(headers['webhook-timestamp']) + 1) },
      },
      { secret: TEST_WEBHOOK_SECRET, body: call!.raw, headers: { ...headers, 'webhook-id': 'msg_forged' } },
      { secret: UNRELATED, body: call!.raw, headers },
      { secret: TEST_WEBHOOK_SECRET, body: call!.raw, headers },
    ];
    const { node, python } = await verifyBoth(cases);
    expect(node.slice(0, 4).every((answer) => answer !== 'ok')).toBe(true);
    expect(python.slice(0, 4)).toEqual(Array(4).fill('WebhookVerificationError'));
    expect(node[4]).toBe('ok');
    expect(python[4]).toBe('ok');
  });

  it("sign an owner's tasks with that owner's secrets from the file, new and old while they overlap", async () => {
    const taskId = await startOwned('orders', uniqueId('owned'));
    const [call] = await h.receiver.waitForCalls(taskId, 1);
    const headers = headersOf(call!);
    // Another owner's task of the same id is another message.
    expect(headers['webhook-id']).toBe(webhookId(`orders/${taskId}`));
    expect(headers['webhook-id']).not.toBe(webhookId(taskId));
    const cases = [ORDERS_NEW, ORDERS_OLD, TEST_WEBHOOK_SECRET].map((secret) => ({
      secret,
      body: call!.raw,
      headers,
    }));
    const { node, python } = await verifyBoth(cases);
    expect(node.slice(0, 2)).toEqual(['ok', 'ok']);
    expect(python).toEqual(['ok', 'ok', 'WebhookVerificationError']);
    expect(node[2]).not.toBe('ok');
  });

  it("never sign an owner's callback with another owner's secret: an owner without one is held, nothing sent", async () => {
    const taskId = await startOwned('nosecret', uniqueId('unsigned'));
    const held = await waitFor(
      async () => {
        const state = await h.client.workflow
          .getHandle(`nosecret/${taskId}`)
          .query<{ lastError: { message: string } | null; attempts: number }>('status');
        return state.lastError?.message.includes('held') ? state : undefined;
      },
      { timeoutMs: 30_000, what: 'the task held' },
    );
    expect(held.lastError!.message).toContain('no webhook signing secret for owner nosecret');
    expect(held.attempts).toBe(0);
    expect(h.receiver.callsFor(taskId)).toHaveLength(0);
    await h.client.workflow.getHandle(`nosecret/${taskId}`).terminate('test done');
  });

  it("give two owners' tasks of the same id different idempotency keys; the default owner keeps the bare id", async () => {
    const taskId = uniqueId('same-id');
    await h.create({
      taskType: h.taskType(),
      taskId,
      payload: {},
      delaySeconds: 0,
      callbackUrl: h.receiver.url,
    });
    await startOwned('orders', taskId);
    const calls = await h.receiver.waitForCalls(taskId, 2);
    const keys = calls.map((call) => String(call.headers['idempotency-key'])).sort();
    expect(keys).toEqual([taskId, `orders/${taskId}`].sort());
    // The body is the contract's, unchanged: the client's task id.
    expect(calls.every((call) => call.body.taskId === taskId)).toBe(true);
  });

  it('keep the bare task id as the key of a task scheduled before keys were owner-scoped', async () => {
    // A sleeping task's input has no idempotencyKey: it fires on the new code with its old key,
    // so a retry of it never arrives under a second key.
    const taskId = await startOwned('orders', uniqueId('scheduled-before'), true);
    const [call] = await h.receiver.waitForCalls(taskId, 1);
    expect(call!.headers['idempotency-key']).toBe(taskId);
  });

  it('keep the same webhook-id when a dead letter is replayed', async () => {
    const taskId = uniqueId('replayed');
    h.receiver.script(taskId, [{ status: 404 }, { status: 200 }]);
    await h.create({
      taskType: h.taskType(),
      taskId,
      payload: {},
      delaySeconds: 0,
      callbackUrl: h.receiver.url,
    });
    await waitForStatus(h, taskId, 'FAILED');
    expect((await h.post(`/api/v1/tasks/${taskId}/replay`, {})).status).toBe(200);
    const calls = await h.receiver.waitForCalls(taskId, 2);
    expect(calls[1]!.headers['webhook-id']).toBe(calls[0]!.headers['webhook-id']);
    expect(verifyWithNode(TEST_WEBHOOK_SECRET, calls[1]!.raw, headersOf(calls[1]!))).toBe('ok');
  });
});
