/**
 * Idempotency by a key the signature covers: the `webhook-id` that `WebhookVerifier.verify`
 * returns (the same on every attempt of a task, after a replay and a reset). Never the
 * `Idempotency-Key` header, which is not signed. A key is recorded only after the handler
 * succeeded, and a recorded key is not handled again.
 */

/** Where handled keys are kept; share one (Redis, a database table) between receiver instances. */
export interface IdempotencyStore {
  has(key: string): boolean | Promise<boolean>;
  add(key: string): void | Promise<void>;
}

/** In-process store of the most recent `maxKeys` keys. */
export class InMemoryIdempotencyStore implements IdempotencyStore {
  private readonly keys = new Set<string>();

  constructor(private readonly maxKeys = 100_000) {}

  has(key: string): boolean {
    return this.keys.has(key);
  }

  add(key: string): void {
    this.keys.add(key);
    if (this.keys.size > this.maxKeys) this.keys.delete(this.keys.values().next().value as string);
  }
}

/** Runs `handler` unless `key` (a verified `webhook-id`) was handled; records it once `handler` resolved. */
export async function once(
  store: IdempotencyStore,
  key: string | undefined,
  handler: () => Promise<void> | void,
): Promise<'handled' | 'duplicate'> {
  if (key && (await store.has(key))) return 'duplicate';
  await handler();
  if (key) await store.add(key);
  return 'handled';
}
