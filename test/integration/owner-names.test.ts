/**
 * An owner named `constructor` (the one Object.prototype name an owner may have: owners are lower
 * case and start with a letter or digit) is an owner like any other, end to end: its task is held
 * while the owner has no signing secret (before, the worker found `Object`'s constructor as its
 * secrets and dead-lettered the task with "secrets.map is not a function"), then delivered once,
 * signed with its own secret, when the operator adds one. A task type named `constructor`, declared
 * in a strict policy file and named by a limited key, is created and delivered too. Every other
 * prototype name, in every map keyed by owner, type or header: test/unit/prototype-names.test.ts.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintWebhookSecret } from '../../src/security/webhook-signature.js';
import { Harness } from '../helpers/harness.js';
import { uniqueId } from '../helpers/tasks.js';
import { TEST_OWNER_SECRETS } from '../helpers/test-env.js';
import { waitFor } from '../helpers/wait.js';

let h: Harness;
let secretsFile: string;
const ordersSecret = TEST_OWNER_SECRETS.orders!;

beforeAll(async () => {
  secretsFile = join(mkdtempSync(join(tmpdir(), 'owner-names-')), 'secrets.json');
  writeFileSync(secretsFile, JSON.stringify({ owners: { orders: [ordersSecret] } }));
  h = await Harness.start({
    env: { WEBHOOK_SECRETS_FILE: secretsFile },
    policies: { strict: true, taskTypes: { constructor: {}, 'order.close': {} } },
    keys: {
      ctor: { owner: 'constructor', scopes: ['tasks:read', 'tasks:write'] },
      typed: { owner: 'orders', scopes: ['tasks:read', 'tasks:write'], allowedTaskTypes: ['constructor'] },
    },
  });
}, 180_000);

afterAll(async () => {
  await h?.stop();
});

const create = (key: string, body: Record<string, unknown>) =>
  h.call('POST', '/api/v1/tasks', {
    key,
    payload: { payload: {}, delaySeconds: 0, maxRetries: 0, callbackUrl: h.receiver.url, ...body },
  });

/** GET with `key` until the task has `status`. */
const waitForStatus = (taskId: string, key: string, status: string, timeoutMs: number) =>
  waitFor(
    async () => {
      const { body } = await h.call('GET', `/api/v1/tasks/${taskId}`, { key });
      return body.status === status && body;
    },
    { timeoutMs, intervalMs: 100, what: `task ${taskId} to be ${status}` },
  );

function verified(taskId: string, secret: string): void {
  const calls = h.receiver.callsFor(taskId);
  expect(calls).toHaveLength(1);
  const headers = Object.fromEntries(
    ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => [
      name,
      String(calls[0]!.headers[name]),
    ]),
  );
  expect(() => new Webhook(secret).verify(calls[0]!.raw, headers)).not.toThrow();
}

describe('an owner named constructor', () => {
  it('is held while it has no signing secret, not dead-lettered, then delivered once with its own', async () => {
    const key = h.keys.ctor!.key;
    const taskId = uniqueId('ctor');
    const created = await create(key, { taskId, taskType: 'order.close' });
    expect(created.status).toBe(201);
    expect(created.body.owner).toBe('constructor');

    const held = await waitFor(
      async () => {
        const { body } = await h.call('GET', `/api/v1/tasks/${taskId}`, { key });
        // Held, or (the bug) dead-lettered: either ends the wait.
        return body.lastError?.message.includes('held') || body.status === 'FAILED' ? body : undefined;
      },
      { timeoutMs: 30_000, what: `${taskId} held` },
    );
    // No retries at all: one attempt spent (or a crash of the attempt) would have dead-lettered it.
    expect(held).toMatchObject({ status: 'RUNNING', attempts: 0 });
    expect(held.lastError.message).toContain('no webhook signing secret for owner constructor');
    expect(h.receiver.callsFor(taskId)).toHaveLength(0);

    const secret = mintWebhookSecret();
    writeFileSync(secretsFile, JSON.stringify({ owners: { orders: [ordersSecret], constructor: [secret] } }));
    const done = await waitForStatus(taskId, key, 'SUCCEEDED', 90_000);
    expect(done.attempts).toBe(1);
    verified(taskId, secret);
    // Its own task: another owner's key does not see it.
    expect((await h.call('GET', `/api/v1/tasks/${taskId}`, { key: h.keys.typed!.key })).status).toBe(404);
  });
});

describe('a task type named constructor', () => {
  it('is declared, allowed to a key that names it, created and delivered', async () => {
    const key = h.keys.typed!.key;
    const taskId = uniqueId('ctor-type');
    const created = await create(key, { taskId, taskType: 'constructor' });
    expect(created.status).toBe(201);
    const refused = await create(key, { taskId: uniqueId('other-type'), taskType: 'order.close' });
    expect(refused.status).toBe(403);
    const done = await waitForStatus(taskId, key, 'SUCCEEDED', 60_000);
    expect(done).toMatchObject({ taskType: 'constructor', owner: 'orders', attempts: 1 });
    verified(taskId, ordersSecret);
  });
});
