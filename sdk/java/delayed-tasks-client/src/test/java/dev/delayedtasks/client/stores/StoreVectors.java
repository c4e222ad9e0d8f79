package dev.delayedtasks.client.stores;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.delayedtasks.client.callback.Claim;
import dev.delayedtasks.client.callback.ClaimResult;
import dev.delayedtasks.client.callback.IdempotencyStore;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;

/**
 * Runs {@code conformance/stores/vectors.json} against one store: every case with keys of its own
 * (a fresh namespace per case). Used by each store's module (test-jar of the client).
 */
public final class StoreVectors {
  /** The SQL inbox, for the {@code sqlOnly} cases: a business table of its own per case. */
  public interface Inbox {
    /**
     * Runs the inbox with an effect that inserts a business row (then throws when {@code fail}).
     *
     * @return {@code COMMITTED}, {@code ROLLED_BACK} or {@code DUPLICATE}
     */
    String run(String key, boolean fail) throws Exception;

    /** Business rows committed. */
    long countRows() throws Exception;
  }

  /** Makes an inbox with a fresh business table. */
  public interface InboxFactory {
    Inbox create() throws Exception;
  }

  private StoreVectors() {}

  public static JsonNode load() throws IOException {
    Path file = Path.of(System.getProperty("conformance.dir"), "stores", "vectors.json");
    return new ObjectMapper().readTree(file.toFile());
  }

  /**
   * One dynamic test per case.
   *
   * @param store the store under test (shared by the cases; keys are namespaced per case)
   * @param inboxes null for a store without an inbox: the {@code sqlOnly} cases are left out
   */
  public static Stream<DynamicTest> tests(Supplier<IdempotencyStore> store, InboxFactory inboxes)
      throws IOException {
    List<DynamicTest> tests = new ArrayList<>();
    for (JsonNode c : load().path("cases")) {
      if (c.path("sqlOnly").asBoolean(false) && inboxes == null) {
        continue;
      }
      tests.add(DynamicTest.dynamicTest(c.path("name").asText(), () -> run(c, store, inboxes)));
    }
    return tests.stream();
  }

  private static void run(JsonNode c, Supplier<IdempotencyStore> stores, InboxFactory inboxes)
      throws Exception {
    IdempotencyStore store = stores.get();
    String ns = "v" + UUID.randomUUID().toString().substring(0, 8) + ":";
    Map<String, String> holders = new HashMap<>(); // "as" name and last claim per key -> token
    Inbox inbox = c.path("sqlOnly").asBoolean(false) ? inboxes.create() : null;
    for (JsonNode step : c.path("steps")) {
      String op = step.path("op").asText();
      String key = ns + key(step.path("key").asText());
      Duration ttl = Duration.ofMillis(step.path("claimTtlMs").asLong(5000));
      String where = c.path("name").asText() + ": " + step;
      switch (op) {
        case "claim" -> {
          Claim claim = store.claim(key, ttl);
          assertEquals(step.path("expect").asText(), claim.result().name(), where);
          if (claim.result() == ClaimResult.CLAIMED) {
            holders.put("key:" + key, claim.token());
            if (step.has("as")) {
              holders.put("as:" + step.path("as").asText(), claim.token());
            }
          }
        }
        case "claimConcurrently" -> {
          Map<String, Integer> counts = claimConcurrently(store, key, ttl, step.path("n").asInt());
          Map<String, Integer> expected = new TreeMap<>();
          step.path("expect")
              .properties()
              .forEach(e -> expected.put(e.getKey(), e.getValue().asInt()));
          assertEquals(expected, counts, where);
        }
        case "release" -> {
          String token =
              step.has("holder")
                  ? holders.get("as:" + step.path("holder").asText())
                  : holders.get("key:" + key);
          store.release(key, token);
        }
        case "complete" -> store.complete(key);
        case "waitMs" -> Thread.sleep(step.path("ms").asLong()); // the TTL must pass: a time wait
        case "inbox" ->
            assertEquals(
                step.path("expect").asText(),
                inbox.run(key, "insertRowThenFail".equals(step.path("effect").asText())),
                where);
        case "countRows" -> assertEquals(step.path("expect").asLong(), inbox.countRows(), where);
        default -> throw new AssertionError("unknown op " + op);
      }
    }
  }

  /** {@code long:N}: N times 'x' followed by N; other keys as they are. */
  static String key(String spec) {
    if (spec.startsWith("long:")) {
      int n = Integer.parseInt(spec.substring(5));
      return "x".repeat(n) + n;
    }
    return spec;
  }

  private static Map<String, Integer> claimConcurrently(
      IdempotencyStore store, String key, Duration ttl, int n) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(n);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<Claim>> claims = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        claims.add(
            pool.submit(
                () -> {
                  start.await();
                  return store.claim(key, ttl);
                }));
      }
      start.countDown();
      Map<String, Integer> counts = new TreeMap<>();
      for (Future<Claim> claim : claims) {
        counts.merge(claim.get().result().name(), 1, Integer::sum);
      }
      return counts;
    } finally {
      pool.shutdownNow();
    }
  }
}
