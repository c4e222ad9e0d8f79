package dev.delayedtasks.client.callback;

/**
 * Remembers the signed {@code webhook-id} of callbacks already handled (the task id when the
 * receiver accepts unsigned callbacks), never the unsigned {@code Idempotency-Key}. Implement it
 * over a shared database to deduplicate across replicas; {@link InMemoryIdempotencyStore} is the
 * default.
 */
public interface IdempotencyStore {
  /** Whether the key was recorded by {@link #record}. */
  boolean contains(String key);

  /** Records the key; called only after the handler succeeded. */
  void record(String key);
}
