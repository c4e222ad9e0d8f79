package dev.delayedtasks.client;

/** The SDK's version, as sent in the {@code User-Agent} header. */
public final class Version {
  /** Kept equal to the Maven project version (a unit test checks it). */
  public static final String VERSION = "0.4.0";

  /** {@code delayed-tasks-java/<version>}. */
  public static final String USER_AGENT = "delayed-tasks-java/" + VERSION;

  private Version() {}
}
