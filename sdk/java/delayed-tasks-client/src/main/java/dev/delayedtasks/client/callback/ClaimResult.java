package dev.delayedtasks.client.callback;

/** What {@link IdempotencyStore#claim} found. */
public enum ClaimResult {
  /** This caller holds the key: run the effect, then complete or release. */
  CLAIMED,
  /** Another holder's claim is alive: answer "retry later", run nothing. */
  IN_PROGRESS,
  /** The key was completed before: answer "duplicate", run nothing. */
  DONE
}
