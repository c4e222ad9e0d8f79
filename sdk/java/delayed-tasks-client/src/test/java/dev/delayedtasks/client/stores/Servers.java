package dev.delayedtasks.client.stores;

import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Assumptions;

/**
 * The real servers the stores' tests need, by environment variable ({@code DTS_REDIS_URL}, {@code
 * DTS_POSTGRES_URL}; {@code sdk/java/test.sh} starts them): a test without its server is skipped,
 * and fails instead under {@code CI=true}.
 */
public final class Servers {
  private Servers() {}

  public static String required(String variable) {
    String url = System.getenv(variable);
    if (url == null || url.isBlank()) {
      if ("true".equals(System.getenv("CI"))) {
        fail(variable + " is not set under CI=true: the store tests must run");
      }
      Assumptions.abort(variable + " is not set: skipped (sdk/java/test.sh sets it)");
    }
    return url;
  }
}
