package dev.delayedtasks.client.callback;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class IdempotencyStoresTest {
  @Test
  void aKeyIsStoredAsItselfUpTo200BytesAndAsItsSha256HexBeyond() {
    assertEquals("msg_1", IdempotencyStores.boundedKey("msg_1"));
    assertEquals("x".repeat(200), IdempotencyStores.boundedKey("x".repeat(200)));
    // 101 two-byte characters: 202 bytes in UTF-8.
    assertEquals(
        "96cbf977549895b3277e0ab79c97a946e15d971c737e0e6b175090601c0d94b1",
        IdempotencyStores.boundedKey("é".repeat(101)));
    assertThrows(NullPointerException.class, () -> IdempotencyStores.boundedKey(null));
  }

  @Test
  void aTtlMustBePositiveAndCountsAtLeastOneMillisecond() {
    assertEquals(Duration.ofSeconds(5), IdempotencyStores.positive(Duration.ofSeconds(5), "ttl"));
    assertEquals(1, IdempotencyStores.millis(Duration.ofNanos(1), "claimTtl"));
    IllegalArgumentException zero =
        assertThrows(
            IllegalArgumentException.class,
            () -> IdempotencyStores.millis(Duration.ZERO, "claimTtl"));
    assertEquals("claimTtl must be positive", zero.getMessage());
    assertThrows(
        IllegalArgumentException.class,
        () -> IdempotencyStores.positive(Duration.ofSeconds(-1), "doneTtl"));
    assertThrows(NullPointerException.class, () -> IdempotencyStores.positive(null, "doneTtl"));
  }
}
