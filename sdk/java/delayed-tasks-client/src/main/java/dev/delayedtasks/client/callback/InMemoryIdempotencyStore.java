package dev.delayedtasks.client.callback;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/**
 * The claims and completed keys of one process, the oldest forgotten first beyond a capacity
 * (default 100,000) and completed keys after the done TTL (default 7 days). A restart forgets every
 * key, and another replica never sees them: use {@code RedisIdempotencyStore} or {@code
 * SqlIdempotencyStore} for a fleet.
 */
public final class InMemoryIdempotencyStore implements IdempotencyStore {
  private record Entry(String token, Instant expiresAt) {
    boolean done() {
      return token == null;
    }
  }

  private final Map<String, Entry> entries;
  private final Duration doneTtl;
  private final Clock clock;

  public InMemoryIdempotencyStore() {
    this(100_000);
  }

  public InMemoryIdempotencyStore(int capacity) {
    this(capacity, DEFAULT_DONE_TTL, Clock.systemUTC());
  }

  /**
   * @param capacity keys kept at most; the oldest is dropped first (even a live claim)
   * @param doneTtl how long a completed key is remembered
   * @param clock the time claims expire by (tests pass a fixed one)
   */
  public InMemoryIdempotencyStore(int capacity, Duration doneTtl, Clock clock) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be >= 1");
    }
    this.doneTtl = IdempotencyStores.positive(doneTtl, "doneTtl");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.entries =
        new LinkedHashMap<>() {
          private static final long serialVersionUID = 1L;

          @Override
          protected boolean removeEldestEntry(Map.Entry<String, Entry> eldest) {
            return size() > capacity;
          }
        };
  }

  @Override
  public synchronized Claim claim(String key, Duration claimTtl) {
    Objects.requireNonNull(key, "key");
    IdempotencyStores.positive(claimTtl, "claimTtl");
    Instant now = clock.instant();
    Entry entry = entries.get(key);
    if (entry != null && entry.expiresAt().isAfter(now)) {
      return entry.done() ? Claim.done() : Claim.inProgress();
    }
    String token = UUID.randomUUID().toString();
    entries.remove(key); // re-inserted last: the eviction order follows the newest write
    entries.put(key, new Entry(token, now.plus(claimTtl)));
    return Claim.claimed(token);
  }

  @Override
  public synchronized void complete(String key) {
    entries.remove(key);
    entries.put(key, new Entry(null, clock.instant().plus(doneTtl)));
  }

  @Override
  public synchronized void release(String key, String token) {
    Entry entry = entries.get(key);
    if (entry != null && !entry.done() && entry.token().equals(token)) {
      entries.remove(key);
    }
  }
}
