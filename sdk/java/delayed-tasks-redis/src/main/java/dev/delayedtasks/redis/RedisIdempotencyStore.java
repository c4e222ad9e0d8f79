package dev.delayedtasks.redis;

import dev.delayedtasks.client.callback.Claim;
import dev.delayedtasks.client.callback.IdempotencyStore;
import dev.delayedtasks.client.callback.IdempotencyStores;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.params.SetParams;

/**
 * The {@link IdempotencyStore} of a fleet, in Redis through Jedis: one key per idempotency key,
 * {@code <namespace><key>} ({@code delayed-tasks:idem:} by default; a key longer than 200 bytes is
 * replaced by its SHA-256 hex).
 *
 * <ul>
 *   <li>{@link #claim}: {@code SET k claimed:<token> NX PX <claimTtl>}, and when that fails, the
 *       value found, in one script (one round trip).
 *   <li>{@link #complete}: {@code SET k done PX <doneTtl>} (one round trip).
 *   <li>{@link #release}: deletes the key only while it still holds this claim's token (compare and
 *       delete in one script).
 * </ul>
 *
 * <pre>{@code
 * IdempotencyStore store = new RedisIdempotencyStore(new JedisPooled("redis://redis:6379"));
 * }</pre>
 *
 * <p>Thread-safe when the {@link UnifiedJedis} is (a {@code JedisPooled} or {@code JedisCluster}).
 * A claim survives a failover only as far as the replica had it: with Redis replication an
 * acknowledged {@code SET} can be lost, and the retry then runs the effect a second time.
 */
public final class RedisIdempotencyStore implements IdempotencyStore {
  /** The namespace keys go under unless {@link Builder#namespace} says otherwise. */
  public static final String DEFAULT_NAMESPACE = "delayed-tasks:idem:";

  private static final String CLAIMED = "claimed:";
  private static final String DONE = "done";

  /** SET NX PX, else the value there: "OK" when claimed. */
  private static final String CLAIM_SCRIPT =
      "if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 'OK' end "
          + "return redis.call('GET', KEYS[1])";

  /** Deletes the key only while it holds this claim. */
  private static final String RELEASE_SCRIPT =
      "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end "
          + "return 0";

  private final UnifiedJedis jedis;
  private final String namespace;
  private final Duration doneTtl;

  /** With the default namespace and done TTL (7 days). */
  public RedisIdempotencyStore(UnifiedJedis jedis) {
    this(builder(jedis));
  }

  private RedisIdempotencyStore(Builder b) {
    this.jedis = b.jedis;
    this.namespace = b.namespace;
    this.doneTtl = b.doneTtl;
  }

  public static Builder builder(UnifiedJedis jedis) {
    return new Builder(jedis);
  }

  @Override
  public Claim claim(String key, Duration claimTtl) {
    String token = UUID.randomUUID().toString();
    Object found =
        jedis.eval(
            CLAIM_SCRIPT,
            List.of(redisKey(key)),
            List.of(
                CLAIMED + token, Long.toString(IdempotencyStores.millis(claimTtl, "claimTtl"))));
    if ("OK".equals(found)) {
      return Claim.claimed(token);
    }
    return DONE.equals(found) ? Claim.done() : Claim.inProgress();
  }

  @Override
  public void complete(String key) {
    jedis.set(redisKey(key), DONE, SetParams.setParams().px(doneTtl.toMillis()));
  }

  @Override
  public void release(String key, String token) {
    if (token != null) {
      jedis.eval(RELEASE_SCRIPT, List.of(redisKey(key)), List.of(CLAIMED + token));
    }
  }

  /** The Redis key of an idempotency key: namespaced, and bounded to the namespace + 200 bytes. */
  String redisKey(String key) {
    return namespace + IdempotencyStores.boundedKey(key);
  }

  /** Builds a {@link RedisIdempotencyStore}. */
  public static final class Builder {
    private final UnifiedJedis jedis;
    private String namespace = DEFAULT_NAMESPACE;
    private Duration doneTtl = DEFAULT_DONE_TTL;

    private Builder(UnifiedJedis jedis) {
      this.jedis = Objects.requireNonNull(jedis, "jedis");
    }

    /**
     * Prefix of every key (default {@code delayed-tasks:idem:}): one per application sharing Redis.
     */
    public Builder namespace(String namespace) {
      this.namespace = Objects.requireNonNull(namespace, "namespace");
      return this;
    }

    /** How long a completed key is remembered (default 7 days). */
    public Builder doneTtl(Duration doneTtl) {
      this.doneTtl = IdempotencyStores.positive(doneTtl, "doneTtl");
      return this;
    }

    public RedisIdempotencyStore build() {
      return new RedisIdempotencyStore(this);
    }
  }
}
