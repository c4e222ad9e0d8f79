package dev.delayedtasks.client.callback;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Keys of one process, the oldest forgotten first beyond a capacity (default 100,000). A restart
 * forgets every key: use a shared store where that matters.
 */
public final class InMemoryIdempotencyStore implements IdempotencyStore {
  private final Map<String, Boolean> keys;

  public InMemoryIdempotencyStore() {
    this(100_000);
  }

  public InMemoryIdempotencyStore(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be >= 1");
    }
    this.keys =
        new LinkedHashMap<>() {
          private static final long serialVersionUID = 1L;

          @Override
          protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            return size() > capacity;
          }
        };
  }

  @Override
  public synchronized boolean contains(String key) {
    return keys.containsKey(key);
  }

  @Override
  public synchronized void record(String key) {
    keys.put(key, Boolean.TRUE);
  }
}
