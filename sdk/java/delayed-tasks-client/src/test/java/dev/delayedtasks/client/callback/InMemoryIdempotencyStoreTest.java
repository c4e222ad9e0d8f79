package dev.delayedtasks.client.callback;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import org.junit.jupiter.api.Test;

/** Unit tests of the in-memory store on a clock the test moves (the vectors run it too). */
class InMemoryIdempotencyStoreTest {
  private static final Duration TTL = Duration.ofSeconds(10);

  /** A clock the test advances. */
  static final class MovableClock extends Clock {
    private Instant now = Instant.parse("2026-12-05T10:00:00Z");

    void advance(Duration by) {
      now = now.plus(by);
    }

    @Override
    public ZoneId getZone() {
      return ZoneId.of("UTC");
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  }

  private final MovableClock clock = new MovableClock();
  private final InMemoryIdempotencyStore store =
      new InMemoryIdempotencyStore(100, Duration.ofDays(7), clock);

  @Test
  void oneClaimWinsUntilItExpires() {
    Claim first = store.claim("k", TTL);
    assertEquals(ClaimResult.CLAIMED, first.result());
    assertNotNull(first.token());
    assertEquals(Claim.inProgress(), store.claim("k", TTL));
    clock.advance(TTL.plusMillis(1));
    Claim second = store.claim("k", TTL);
    assertEquals(ClaimResult.CLAIMED, second.result());

    store.release("k", first.token()); // late: the key is someone else's now
    assertEquals(ClaimResult.IN_PROGRESS, store.claim("k", TTL).result());
    store.release("k", second.token());
    assertEquals(ClaimResult.CLAIMED, store.claim("k", TTL).result());
  }

  @Test
  void aCompletedKeyIsDoneForTheDoneTtlThenForgotten() {
    store.claim("k", TTL);
    store.complete("k");
    Claim done = store.claim("k", TTL);
    assertEquals(ClaimResult.DONE, done.result());
    assertNull(done.token());
    clock.advance(Duration.ofDays(7).plusSeconds(1));
    assertEquals(ClaimResult.CLAIMED, store.claim("k", TTL).result());
  }

  @Test
  void theOldestKeyIsForgottenBeyondTheCapacity() {
    InMemoryIdempotencyStore small = new InMemoryIdempotencyStore(2, Duration.ofDays(7), clock);
    for (String key : new String[] {"a", "b", "c"}) {
      small.claim(key, TTL);
      small.complete(key);
    }
    assertEquals(ClaimResult.CLAIMED, small.claim("a", TTL).result());
    assertEquals(ClaimResult.DONE, small.claim("c", TTL).result());
  }
}
