package dev.delayedtasks.client;

/**
 * What happens when a schedule's run is due while its previous occurrence still runs. The service's
 * default is {@link #SKIP} ({@link #ALLOW_ALL} for trigger and backfill).
 */
public enum OverlapPolicy {
  SKIP("skip"),
  /** Start it when the previous ends; at most one waits. */
  BUFFER_ONE("bufferOne"),
  /** Start each in turn. */
  BUFFER_ALL("bufferAll"),
  /** Start it now, beside the previous. */
  ALLOW_ALL("allowAll"),
  /** Cancel the previous occurrence, then start. */
  CANCEL_OTHER("cancelOther"),
  /** A policy from a newer server. */
  UNKNOWN("UNKNOWN");

  private final String wire;

  OverlapPolicy(String wire) {
    this.wire = wire;
  }

  /** The name on the wire: {@code skip}, {@code bufferOne}... */
  public String wireName() {
    return wire;
  }

  /** The wire name too, so that a log or a message says {@code skip} as the service does. */
  @Override
  public String toString() {
    return wire;
  }

  static OverlapPolicy fromWire(String raw) {
    for (OverlapPolicy policy : values()) {
      if (policy.wire.equals(raw)) {
        return policy;
      }
    }
    return UNKNOWN;
  }
}
