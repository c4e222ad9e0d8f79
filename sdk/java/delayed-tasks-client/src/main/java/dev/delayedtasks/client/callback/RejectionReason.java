package dev.delayedtasks.client.callback;

/** Why a callback was refused; {@link #wireName()} is the stable string of the vectors. */
public enum RejectionReason {
  MISSING_HEADER,
  INVALID_TIMESTAMP,
  TIMESTAMP_TOO_OLD,
  TIMESTAMP_TOO_NEW,
  NO_MATCHING_SIGNATURE,
  INVALID_SECRET,
  INVALID_BODY;

  /** Lower-case stable name, e.g. {@code no_matching_signature}. */
  public String wireName() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
