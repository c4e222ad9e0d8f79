package dev.delayedtasks.client.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;

/** JSON and time helpers shared by the client and the receiving side. Not a public API. */
public final class Json {
  /**
   * Numbers are read without loss: integers as int/long/BigInteger, fractions as BigDecimal with
   * their digits as sent.
   */
  public static final ObjectMapper MAPPER =
      JsonMapper.builder()
          .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .disable(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES)
          .build();

  private static final DateTimeFormatter RFC3339_MILLIS =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

  private Json() {}

  /** Parses bytes into a tree; throws on anything that is not one JSON value. */
  public static JsonNode parse(byte[] body) throws IOException {
    JsonNode node = MAPPER.readTree(body);
    if (node == null || node.isMissingNode()) {
      throw new IOException("empty body");
    }
    return node;
  }

  public static byte[] write(JsonNode node) {
    try {
      return MAPPER.writeValueAsBytes(node);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot serialise a JSON tree", e);
    }
  }

  /** RFC 3339 in UTC with exactly three fraction digits: {@code 2026-12-03T10:00:00.000Z}. */
  public static String formatTime(Instant instant) {
    return RFC3339_MILLIS.format(instant);
  }

  /** Parses an RFC 3339 time with an offset ({@code Z} or {@code +08:00}). */
  public static Instant parseTime(String text) {
    return OffsetDateTime.parse(text, DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant();
  }

  /** Text of a field, or null when absent or JSON null. */
  public static String text(JsonNode node, String field) {
    JsonNode value = node.get(field);
    return value == null || value.isNull() ? null : value.asText();
  }

  /** A time field, or null when absent or JSON null. */
  public static Instant time(JsonNode node, String field) {
    String value = text(node, field);
    if (value == null) {
      return null;
    }
    try {
      return parseTime(value);
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException(field + " is not an RFC 3339 time: " + value, e);
    }
  }

  /** An integer field, or null when absent or JSON null. */
  public static Integer integer(JsonNode node, String field) {
    JsonNode value = node.get(field);
    return value == null || value.isNull() ? null : value.asInt();
  }
}
