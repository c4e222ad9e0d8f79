package dev.delayedtasks.client.internal;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Map;
import java.util.Optional;

/**
 * Walks a payload tree for values the API refuses and JSON cannot carry faithfully: non-finite
 * numbers and integers beyond ±(2^53−1). Not a public API.
 */
public final class PayloadCheck {
  /** 2^53 − 1, the largest integer every JSON reader (JavaScript included) keeps exactly. */
  public static final BigInteger MAX_SAFE_INTEGER = BigInteger.valueOf(9_007_199_254_740_991L);

  private static final BigDecimal MAX_SAFE = new BigDecimal(MAX_SAFE_INTEGER);

  /** A refused value: its field path ({@code payload.items.2}) and why. */
  public record Problem(String field, String reason) {}

  private PayloadCheck() {}

  /** The first refused value in document order, if any. */
  public static Optional<Problem> find(JsonNode node, String path) {
    if (node.isObject()) {
      for (Map.Entry<String, JsonNode> entry : node.properties()) {
        Optional<Problem> found = find(entry.getValue(), path + "." + entry.getKey());
        if (found.isPresent()) {
          return found;
        }
      }
      return Optional.empty();
    }
    if (node.isArray()) {
      for (int i = 0; i < node.size(); i++) {
        Optional<Problem> found = find(node.get(i), path + "." + i);
        if (found.isPresent()) {
          return found;
        }
      }
      return Optional.empty();
    }
    if (!node.isNumber()) {
      return Optional.empty();
    }
    if (node.isDouble() || node.isFloat()) {
      double value = node.doubleValue();
      if (!Double.isFinite(value)) {
        return Optional.of(new Problem(path, Reasons.NOT_FINITE));
      }
      return tooLarge(new BigDecimal(value), path);
    }
    if (node.isBigDecimal()) {
      BigDecimal value = node.decimalValue();
      if (!Double.isFinite(value.doubleValue())) {
        return Optional.of(new Problem(path, Reasons.NOT_FINITE));
      }
      return tooLarge(value, path);
    }
    return tooLarge(new BigDecimal(node.bigIntegerValue()), path);
  }

  /**
   * Any number of a magnitude beyond 2^53−1, whatever its type: the API reads JSON numbers as
   * doubles and refuses such integers, and every double that large is integral.
   */
  private static Optional<Problem> tooLarge(BigDecimal value, String path) {
    if (value.abs().compareTo(MAX_SAFE) > 0) {
      return Optional.of(new Problem(path, Reasons.UNSAFE_INTEGER));
    }
    return Optional.empty();
  }
}
