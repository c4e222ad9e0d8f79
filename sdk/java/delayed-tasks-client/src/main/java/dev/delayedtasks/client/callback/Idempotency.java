package dev.delayedtasks.client.callback;

import java.util.Objects;

/**
 * Runs a callback's work at most once per key as far as its store remembers: the key is recorded
 * only after the work returned, so a failure leaves the next attempt free to run it again. The key
 * is one the signature covers: the {@code webhook-id} that {@link WebhookVerifier#verify(Map,
 * byte[])} returns (the same on every attempt of a task, after a replay and a reset).
 */
public final class Idempotency {
  /**
   * The header the service sends, naming the task.
   *
   * @deprecated not covered by the signature: a replay within the tolerance can drop it or swap in
   *     another task's. Key on the {@code webhook-id} that {@link WebhookVerifier#verify(Map,
   *     byte[])} returns.
   */
  @Deprecated public static final String HEADER = "Idempotency-Key";

  /** Work that may throw. */
  @FunctionalInterface
  public interface Work {
    void run() throws Exception;
  }

  private final IdempotencyStore store;

  public Idempotency(IdempotencyStore store) {
    this.store = Objects.requireNonNull(store, "store");
  }

  /**
   * Runs the work unless the key was recorded; records the key when the work returns.
   *
   * @param key the verified {@code webhook-id}; null runs the work without recording anything
   * @return true when the work ran, false when the key was a repeat
   */
  public boolean runOnce(String key, Work work) throws Exception {
    if (key != null && store.contains(key)) {
      return false;
    }
    work.run();
    if (key != null) {
      store.record(key);
    }
    return true;
  }
}
