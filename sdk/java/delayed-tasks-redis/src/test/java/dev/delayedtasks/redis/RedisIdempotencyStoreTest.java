package dev.delayedtasks.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayedtasks.client.callback.Claim;
import dev.delayedtasks.client.callback.ClaimResult;
import dev.delayedtasks.client.callback.IdempotencyStore;
import dev.delayedtasks.client.stores.Fleet;
import dev.delayedtasks.client.stores.Servers;
import dev.delayedtasks.client.stores.StoreVectors;
import java.time.Duration;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import redis.clients.jedis.JedisPooled;

/** The Redis store against a real redis-server ({@code DTS_REDIS_URL}). */
class RedisIdempotencyStoreTest {
  private static JedisPooled jedis;
  private static String url;
  private static String namespace;

  @BeforeAll
  static void connect() {
    url = Servers.required("DTS_REDIS_URL");
    jedis = new JedisPooled(url);
    namespace = "test-" + UUID.randomUUID().toString().substring(0, 8) + ":";
  }

  @AfterAll
  static void close() {
    if (jedis != null) {
      jedis.close();
    }
  }

  private static RedisIdempotencyStore store() {
    return RedisIdempotencyStore.builder(jedis).namespace(namespace).build();
  }

  @TestFactory
  Stream<DynamicTest> conformanceVectors() throws Exception {
    RedisIdempotencyStore store = store();
    return StoreVectors.tests(() -> store, null);
  }

  @Test
  void keysAreNamespacedAndALongKeyIsItsSha256() {
    RedisIdempotencyStore store = store();
    assertEquals(namespace + "msg_1", store.redisKey("msg_1"));
    String longKey = store.redisKey("é".repeat(101)); // 202 bytes
    assertEquals(namespace.length() + 64, longKey.length());
    assertTrue(longKey.substring(namespace.length()).matches("[0-9a-f]{64}"), longKey);
    assertEquals(namespace + "x".repeat(200), store.redisKey("x".repeat(200)));
  }

  @Test
  void whatRedisHoldsIsTheClaimThenDoneWithItsTtl() {
    IdempotencyStore store = store();
    Claim claim = store.claim("k-ttl", Duration.ofSeconds(30));
    assertEquals("claimed:" + claim.token(), jedis.get(namespace + "k-ttl"));
    assertTrue(jedis.pttl(namespace + "k-ttl") <= 30_000);
    store.complete("k-ttl");
    assertEquals("done", jedis.get(namespace + "k-ttl"));
    assertTrue(jedis.pttl(namespace + "k-ttl") > Duration.ofDays(6).toMillis());
    assertEquals(ClaimResult.DONE, store.claim("k-ttl", Duration.ofSeconds(30)).result());
  }

  /** Issue 42's fleet test: 3 receiver processes, 1,000 keys each delivered to all at once. */
  @Test
  void aFleetOfThreeReceiversRunsEachEffectOnceAndAKilledOneIsRetriedOnce() throws Exception {
    String fleetUrl = url + "#fleet-" + UUID.randomUUID().toString().substring(0, 8) + ":";
    Fleet.Result r = new Fleet(RedisStores.class, fleetUrl, 3, Duration.ofSeconds(2)).run(1000);
    System.out.println("redis fleet: " + r);
    assertEquals(1000, r.effects(), r.toString());
    assertEquals(0, r.doubles(), r.toString());
    assertEquals(0, r.missing(), r.toString());
    assertEquals(1, r.crashedKeyEffects(), r.toString());
    assertTrue(
        r.crashedKeyLastAnswer().matches("200 .*handled.* then 200 .*duplicate.*"), r.toString());
    assertEquals(1000, r.answers().get("200 {\"status\":\"handled\"}"), r.toString());
  }
}
