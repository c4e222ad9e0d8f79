package dev.delayedtasks.client.callback;

import java.time.Duration;
import java.util.Objects;

/**
 * Runs work once per key across everyone sharing the store: claims the key, runs the work,
 * completes the key when the work returned and releases it when the work threw (so the next attempt
 * runs it again). The receiver and the pull worker both go through here. The key is one the
 * signature covers: the {@code webhook-id} that {@link WebhookVerifier#verify(Map, byte[])} returns
 * (the same on every attempt of a task, after a replay and a reset), or a lease's {@code
 * idempotencyKey}.
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
  private final Duration claimTtl;

  /** Claims for {@link IdempotencyStore#DEFAULT_CLAIM_TTL}. */
  public Idempotency(IdempotencyStore store) {
    this(store, IdempotencyStore.DEFAULT_CLAIM_TTL);
  }

  /**
   * @param claimTtl how long a claim outlives a crashed holder; longer than the work takes
   */
  public Idempotency(IdempotencyStore store, Duration claimTtl) {
    this.store = Objects.requireNonNull(store, "store");
    this.claimTtl = IdempotencyStores.positive(claimTtl, "claimTtl");
  }

  /**
   * Runs the work when the key is claimed: {@link ClaimResult#CLAIMED} means it ran and returned
   * (the key is now done); {@link ClaimResult#IN_PROGRESS} and {@link ClaimResult#DONE} mean it did
   * not run. When the work throws, the claim is released and the exception propagates.
   *
   * @param key the verified {@code webhook-id}; null runs the work without the store
   */
  public ClaimResult runOnce(String key, Work work) throws Exception {
    if (key == null) {
      work.run();
      return ClaimResult.CLAIMED;
    }
    Claim claim = store.claim(key, claimTtl);
    if (claim.result() != ClaimResult.CLAIMED) {
      return claim.result();
    }
    try {
      work.run();
    } catch (Exception | Error e) {
      try {
        store.release(key, claim.token());
      } catch (RuntimeException releaseFailed) {
        e.addSuppressed(releaseFailed); // the claim expires by itself
      }
      throw e;
    }
    store.complete(key);
    return ClaimResult.CLAIMED;
  }
}
