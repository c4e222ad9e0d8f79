/**
 * {@link dev.delayedtasks.redis.RedisIdempotencyStore}: the idempotency store of a fleet of
 * receivers and pull workers, over Jedis. Artifact {@code dev.delayedtasks:delayed-tasks-redis}.
 */
package dev.delayedtasks.redis;
