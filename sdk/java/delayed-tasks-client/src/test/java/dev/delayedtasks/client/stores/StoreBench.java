package dev.delayedtasks.client.stores;

import dev.delayedtasks.client.callback.ClaimResult;
import dev.delayedtasks.client.callback.IdempotencyStore;
import java.time.Duration;
import java.util.Arrays;
import java.util.UUID;

/**
 * What a store adds to each callback, printed, not asserted: a handled callback costs {@code claim}
 * + {@code complete}, a duplicate one {@code claim}. Run by the stores' {@code StoreOverheadBench}
 * tests with {@code -Dbench=true}.
 */
public final class StoreBench {
  private StoreBench() {}

  public static void run(String name, IdempotencyStore store, int n) {
    String run = "bench-" + UUID.randomUUID().toString().substring(0, 8) + "-";
    Duration ttl = Duration.ofMinutes(1);
    for (int i = 0; i < 200; i++) { // warm-up: JIT, pool connections
      store.claim(run + "warm-" + i, ttl);
      store.complete(run + "warm-" + i);
    }
    long[] handled = new long[n];
    long[] duplicate = new long[n];
    for (int i = 0; i < n; i++) {
      long t0 = System.nanoTime();
      if (store.claim(run + i, ttl).result() != ClaimResult.CLAIMED) {
        throw new IllegalStateException("a fresh key was not claimed");
      }
      store.complete(run + i);
      long t1 = System.nanoTime();
      store.claim(run + i, ttl);
      long t2 = System.nanoTime();
      handled[i] = t1 - t0;
      duplicate[i] = t2 - t1;
    }
    System.out.printf(
        "%s store, %d callbacks: handled (claim + complete, 2 round trips) p50 %.2f ms p99 %.2f ms;"
            + " duplicate (claim, 1 round trip) p50 %.2f ms p99 %.2f ms%n",
        name, n, pct(handled, 50), pct(handled, 99), pct(duplicate, 50), pct(duplicate, 99));
  }

  private static double pct(long[] nanos, int p) {
    long[] sorted = nanos.clone();
    Arrays.sort(sorted);
    return sorted[Math.min(sorted.length - 1, sorted.length * p / 100)] / 1e6;
  }
}
