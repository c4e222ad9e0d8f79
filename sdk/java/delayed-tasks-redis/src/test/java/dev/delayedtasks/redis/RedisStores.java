package dev.delayedtasks.redis;

import dev.delayedtasks.client.callback.IdempotencyStore;
import dev.delayedtasks.client.stores.StoreFactory;
import java.time.Duration;
import redis.clients.jedis.JedisPooled;

/** Opens the store the fleet's receivers share (a fresh namespace per fleet run is in the URL). */
public final class RedisStores implements StoreFactory {
  @Override
  public IdempotencyStore open(String url) {
    int hash = url.indexOf('#'); // redis://host:port#namespace
    return RedisIdempotencyStore.builder(new JedisPooled(hash < 0 ? url : url.substring(0, hash)))
        .namespace(hash < 0 ? RedisIdempotencyStore.DEFAULT_NAMESPACE : url.substring(hash + 1))
        .doneTtl(Duration.ofHours(1))
        .build();
  }
}
