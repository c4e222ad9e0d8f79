package dev.delayedtasks.client;

/** How a callback attempt ended. */
public enum AttemptOutcome {
  /** The callback answered 2xx. */
  SUCCEEDED,
  /** 408, 425, 429, 5xx, a timeout or a network error: retried. */
  RETRYABLE_ERROR,
  /** Another 4xx, a 3xx, or refused: the task failed. */
  PERMANENT_ERROR,
  /** The task was cancelled while the attempt ran. */
  CANCELLED,
  /** An outcome from a newer server. */
  UNKNOWN;

  static AttemptOutcome fromWire(String raw) {
    for (AttemptOutcome outcome : values()) {
      if (outcome.name().equals(raw)) {
        return outcome;
      }
    }
    return UNKNOWN;
  }
}
