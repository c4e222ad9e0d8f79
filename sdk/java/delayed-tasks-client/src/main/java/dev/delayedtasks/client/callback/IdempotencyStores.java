package dev.delayedtasks.client.callback;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Objects;

/**
 * What every {@link IdempotencyStore} does alike ({@code conformance/stores}), for the stores of
 * this SDK's other artifacts ({@code RedisIdempotencyStore}, {@code SqlIdempotencyStore}) and for
 * your own: the key as it is stored, and the check of a claim or done TTL.
 */
public final class IdempotencyStores {
  private static final int MAX_KEY_BYTES = 200;

  private IdempotencyStores() {}

  /**
   * The key as a store keeps it: itself up to 200 bytes (UTF-8), beyond that its SHA-256 hex (64
   * characters), so that a store's key column or key size stays bounded.
   *
   * @throws NullPointerException when {@code key} is null
   */
  public static String boundedKey(String key) {
    byte[] bytes = Objects.requireNonNull(key, "key").getBytes(StandardCharsets.UTF_8);
    if (bytes.length <= MAX_KEY_BYTES) {
      return key;
    }
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  /**
   * {@code ttl}, checked.
   *
   * @param name the TTL's name in the exception's message ({@code claimTtl}, {@code doneTtl})
   * @throws NullPointerException when {@code ttl} is null
   * @throws IllegalArgumentException when {@code ttl} is zero or negative
   */
  public static Duration positive(Duration ttl, String name) {
    Objects.requireNonNull(ttl, name);
    if (ttl.isNegative() || ttl.isZero()) {
      throw new IllegalArgumentException(name + " must be positive");
    }
    return ttl;
  }

  /** {@link #positive} in whole milliseconds, at least 1 (a sub-millisecond TTL counts as 1 ms). */
  public static long millis(Duration ttl, String name) {
    return Math.max(1, positive(ttl, name).toMillis());
  }
}
