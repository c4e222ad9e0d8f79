package dev.delayedtasks.client.internal;

/**
 * The reasons of the checks made before sending, word for word the same in every SDK of this
 * service (the conformance vectors compare them: {@code REASONS} in {@code
 * conformance/client-vectors/common.ts}). An error shows them after the field: {@code delaySeconds
 * must not be negative}. Not a public API.
 */
public final class Reasons {
  public static final String NOT_FINITE = "is not a finite number";
  public static final String UNSAFE_INTEGER =
      "is an integer beyond ±(2^53-1); send large ids and amounts as strings";
  public static final String EXACTLY_ONE_SCHEDULE = "give exactly one of delaySeconds or executeAt";
  public static final String NEGATIVE = "must not be negative";
  public static final String NOT_AN_OBJECT = "must be a JSON object";

  private Reasons() {}
}
