package dev.delayedtasks.client.callback;

import java.util.Objects;

/**
 * The answer of {@link IdempotencyStore#claim}.
 *
 * @param result what the claim found
 * @param token identifies this claim to {@link IdempotencyStore#release}; null unless {@link
 *     ClaimResult#CLAIMED}
 */
public record Claim(ClaimResult result, String token) {
  private static final Claim IN_PROGRESS = new Claim(ClaimResult.IN_PROGRESS, null);
  private static final Claim DONE = new Claim(ClaimResult.DONE, null);

  public Claim {
    Objects.requireNonNull(result, "result");
    if ((result == ClaimResult.CLAIMED) != (token != null)) {
      throw new IllegalArgumentException("a token comes with CLAIMED and only with it");
    }
  }

  /** This caller holds the key under {@code token}. */
  public static Claim claimed(String token) {
    return new Claim(ClaimResult.CLAIMED, Objects.requireNonNull(token, "token"));
  }

  /** Another holder's claim is alive. */
  public static Claim inProgress() {
    return IN_PROGRESS;
  }

  /** The key was completed before. */
  public static Claim done() {
    return DONE;
  }
}
