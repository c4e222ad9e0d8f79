/**
 * The receiver's claim semantics (conformance/stores/README.md): a callback whose key another
 * receiver is handling answers 503 with Retry-After: 5 and runs nothing; a handler that failed
 * releases its claim so the retry runs; one that succeeded completes it. And the deprecated form
 * of `handlers` (one function for every type) still works, with a warning.
 */
import { describe, expect, it, vi } from 'vitest';
import {
  ClaimResult,
  createReceiver,
  InMemoryIdempotencyStore,
  RetryableError,
  type Callback,
} from '../../src/index.js';
import { SECRET, NOW, signedRequest } from './signed-request.js';

const base = { secrets: [SECRET], now: () => NOW * 1000 };

describe('receiver with claims', () => {
  it('a key claimed by another receiver answers 503 Retry-After 5 and runs nothing; done, a duplicate', async () => {
    const store = new InMemoryIdempotencyStore();
    const ran: string[] = [];
    const receive = createReceiver({
      ...base,
      idempotencyStore: store,
      handlers: { 'order.close': (cb) => void ran.push(cb.taskId) },
    });
    const { headers, body } = signedRequest({ taskId: 't-1' }, 'msg_busy');
    const other = await store.claim('msg_busy');
    expect(other.result).toBe(ClaimResult.CLAIMED);

    expect(await receive(headers, body)).toMatchObject({
      status: 503,
      headers: { 'retry-after': '5' },
      body: { status: 'retry' },
    });
    expect(ran).toEqual([]);

    await store.complete('msg_busy');
    expect(await receive(headers, body)).toMatchObject({ status: 200, body: { status: 'duplicate' } });
    expect(ran).toEqual([]);
  });

  it('a handler that failed releases its claim, one that returned completes it', async () => {
    const store = new InMemoryIdempotencyStore();
    let calls = 0;
    const receive = createReceiver({
      ...base,
      idempotencyStore: store,
      handlers: {
        'order.close': () => {
          if (++calls === 1) throw new RetryableError('not yet', 1);
        },
      },
    });
    const { headers, body } = signedRequest({ taskId: 't-2' }, 'msg_retry');
    expect((await receive(headers, body)).status).toBe(503);
    // Released: the key is free (this probe takes it and gives it back).
    const probe = await store.claim('msg_retry');
    expect(probe.result).toBe(ClaimResult.CLAIMED);
    await store.release('msg_retry', probe.token ?? '');
    expect((await receive(headers, body)).status).toBe(200);
    expect((await store.claim('msg_retry')).result).toBe(ClaimResult.DONE);
    expect(calls).toBe(2);
  });

  it('one function for every task type still works and warns once that it is deprecated', async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      const seen: Callback[] = [];
      const handler = (cb: Callback) => void seen.push(cb);
      const first = createReceiver({ ...base, handlers: handler });
      createReceiver({ ...base, handlers: handler });
      const { headers, body } = signedRequest({ taskId: 't-3', taskType: 'any.type' }, 'msg_any');
      expect((await first(headers, body)).body).toEqual({ status: 'handled' });
      expect(seen.map((cb) => cb.taskType)).toEqual(['any.type']);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(warn.mock.calls[0]?.[1]).toMatchObject({ type: 'DeprecationWarning' });
    } finally {
      warn.mockRestore();
    }
  });
});
