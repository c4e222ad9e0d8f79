package dev.delayedtasks.redis;

import dev.delayedtasks.client.callback.InMemoryIdempotencyStore;
import dev.delayedtasks.client.stores.Servers;
import dev.delayedtasks.client.stores.StoreBench;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import redis.clients.jedis.JedisPooled;

/**
 * Prints the Redis store's overhead per callback (p50/p99), beside the in-memory store's; not a
 * timed test: {@code mvn -q test -pl delayed-tasks-redis -Dtest=StoreOverheadBench -Dbench=true}.
 */
@EnabledIfSystemProperty(named = "bench", matches = "true")
class StoreOverheadBench {
  @Test
  void printOverhead() {
    StoreBench.run("memory", new InMemoryIdempotencyStore(), 5000);
    try (JedisPooled jedis = new JedisPooled(Servers.required("DTS_REDIS_URL"))) {
      StoreBench.run(
          "redis", RedisIdempotencyStore.builder(jedis).namespace("bench:").build(), 5000);
    }
  }
}
