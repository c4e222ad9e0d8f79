package dev.delayedtasks.client.callback;

/**
 * Remembers the {@code Idempotency-Key} of callbacks already handled. Implement it over a shared
 * database to deduplicate across replicas; {@link InMemoryIdempotencyStore} is the default.
 */
public interface IdempotencyStore {
  /** Whether the key was recorded by {@link #record}. */
  boolean contains(String key);

  /** Records the key; called only after the handler succeeded. */
  void record(String key);
}
