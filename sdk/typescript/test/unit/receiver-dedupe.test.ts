/**
 * From the attacker's side: someone who captured a signed callback sends it again within the
 * tolerance with the unsigned `Idempotency-Key` header removed, changed, or set to another task's
 * key. The receiver deduplicates on the signed `webhook-id`, so the handler does not run a second
 * time, and another task's genuine callback is never taken for a duplicate.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createNodeHandler, WebhookVerifier, type ReceiverOptions } from '../../src/index.js';
import { NOW, SECRET, signedRequest, withKey, type Signed } from './signed-request.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

/** A receiver on loopback; `ran` lists the task ids its handler ran for, in order. */
async function receiver(options: Partial<ReceiverOptions> = { secrets: [SECRET] }) {
  const ran: string[] = [];
  const server = createServer(
    createNodeHandler({
      now: () => NOW * 1000,
      ...options,
      handlers: { 'order.close': (cb) => void ran.push(cb.taskId) },
    }),
  );
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callbacks`;
  const send = async ({ headers, body }: Signed) => {
    const response = await fetch(url, { method: 'POST', headers, body });
    return [response.status, await response.json()] as const;
  };
  return { ran, send };
}

const handled = [200, { status: 'handled' }] as const;
const duplicate = [200, { status: 'duplicate' }] as const;
const taskA = signedRequest({ taskId: 't-1' }, 'msg_a');
const taskB = signedRequest({ taskId: 't-2' }, 'msg_b');

describe('the receiver deduplicates on the signed webhook-id, never the Idempotency-Key header', () => {
  it.each([
    { tamper: 'removed', key: null },
    { tamper: 'changed', key: 'replayed-1' },
    { tamper: "set to another task's key", key: 't-2' },
  ])('a captured callback replayed with its Idempotency-Key $tamper does not run again', async ({ key }) => {
    const { ran, send } = await receiver();
    expect(await send(taskA)).toEqual(handled);
    expect(await send(withKey(taskA, key))).toEqual(duplicate);
    expect(ran).toEqual(['t-1']);
  });

  it('a genuine callback still runs after a replay carrying its Idempotency-Key', async () => {
    const { ran, send } = await receiver();
    expect(await send(taskA)).toEqual(handled);
    expect(await send(withKey(taskA, 't-2'))).toEqual(duplicate);
    expect(await send(taskB)).toEqual(handled);
    // And B's own retry (same webhook-id, a later timestamp and attempt) is B's duplicate.
    expect(await send(signedRequest({ taskId: 't-2', attempt: 2 }, 'msg_b', NOW + 60))).toEqual(duplicate);
    expect(ran).toEqual(['t-1', 't-2']);
  });

  it('a genuine callback still runs when the replay of another reached the receiver first', async () => {
    const { ran, send } = await receiver();
    // The attacker's copy of A under B's key arrives before A itself: it is A, handled as A.
    expect(await send(withKey(taskA, 't-2'))).toEqual(handled);
    expect(await send(taskB)).toEqual(handled);
    expect(await send(taskA)).toEqual(duplicate);
    expect(ran).toEqual(['t-1', 't-2']);
  });

  it("a forged callback naming another task's webhook-id is refused and records nothing", async () => {
    const { ran, send } = await receiver();
    const forged = { ...taskB, body: taskB.body.replace('"orderId":"1"', '"orderId":"9"') };
    expect(await send(forged)).toEqual([401, { status: 'refused', reason: 'no_matching_signature' }]);
    expect(await send(taskB)).toEqual(handled);
    expect(ran).toEqual(['t-2']);
  });

  it("unsigned (no secrets, allowUnsigned): keyed by the body's taskId, not the header", async () => {
    const { ran, send } = await receiver({ allowUnsigned: true });
    const unsigned = ({ headers: { 'idempotency-key': key = '' }, body }: Signed, k = key) => ({
      headers: { 'content-type': 'application/json', 'idempotency-key': k },
      body,
    });
    expect(await send(unsigned(taskA))).toEqual(handled);
    expect(await send(unsigned(taskA, 'replayed-1'))).toEqual(duplicate);
    expect(await send(unsigned(taskB, 't-1'))).toEqual(handled);
    expect(ran).toEqual(['t-1', 't-2']);
  });

  it('WebhookVerifier.verify returns the signed webhook-id, the key for other frameworks', () => {
    const verifier = new WebhookVerifier({ secrets: [SECRET], now: () => NOW * 1000 });
    expect(verifier.verify(withKey(taskA, 't-2').headers, taskA.body)).toBe('msg_a');
  });
});
