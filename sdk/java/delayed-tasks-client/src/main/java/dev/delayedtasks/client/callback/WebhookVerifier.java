package dev.delayedtasks.client.callback;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Checks a callback's Standard Webhooks signature on the raw body bytes: headers {@code
 * webhook-id}, {@code webhook-timestamp}, {@code webhook-signature} (space-separated {@code
 * v1,<base64>} entries; other versions ignored), HMAC-SHA256 over {@code id.timestamp.body} with
 * any of the secrets (several while they rotate), and the timestamp within the tolerance of the
 * clock both ways. Thread-safe.
 */
public final class WebhookVerifier {
  public static final String ID_HEADER = "webhook-id";
  public static final String TIMESTAMP_HEADER = "webhook-timestamp";
  public static final String SIGNATURE_HEADER = "webhook-signature";
  private static final String SECRET_PREFIX = "whsec_";
  private static final String HMAC = "HmacSHA256";

  private final List<byte[]> keys;
  private final Duration tolerance;
  private final Clock clock;

  private WebhookVerifier(List<byte[]> keys, Duration tolerance, Clock clock) {
    this.keys = keys;
    this.tolerance = tolerance;
    this.clock = clock;
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Verifies with headers looked up case-insensitively.
   *
   * @return the signed {@code webhook-id}: the key to deduplicate on
   * @throws CallbackRejectedException with the reason
   */
  public String verify(Map<String, String> headers, byte[] body) {
    Map<String, String> lookup = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    lookup.putAll(headers);
    return verify(
        lookup.get(ID_HEADER), lookup.get(TIMESTAMP_HEADER), lookup.get(SIGNATURE_HEADER), body);
  }

  /**
   * Verifies the three header values against the raw body.
   *
   * @return {@code id}, now known to be signed: the key to deduplicate on
   * @throws CallbackRejectedException with the reason
   */
  public String verify(String id, String timestamp, String signatures, byte[] body) {
    Objects.requireNonNull(body, "body");
    if (isBlank(id) || isBlank(timestamp) || isBlank(signatures)) {
      throw new CallbackRejectedException(
          RejectionReason.MISSING_HEADER, "webhook-id, webhook-timestamp and webhook-signature");
    }
    long sentAt = parseTimestamp(timestamp);
    long now = clock.instant().getEpochSecond();
    if (now - sentAt > tolerance.getSeconds()) {
      throw new CallbackRejectedException(RejectionReason.TIMESTAMP_TOO_OLD, "sent at " + sentAt);
    }
    if (sentAt - now > tolerance.getSeconds()) {
      throw new CallbackRejectedException(RejectionReason.TIMESTAMP_TOO_NEW, "sent at " + sentAt);
    }
    List<byte[]> candidates = new ArrayList<>();
    for (String entry : signatures.trim().split(" +")) {
      int comma = entry.indexOf(',');
      if (comma > 0 && entry.substring(0, comma).equals("v1")) {
        try {
          candidates.add(Base64.getDecoder().decode(entry.substring(comma + 1)));
        } catch (IllegalArgumentException ignored) {
          // A malformed entry matches nothing.
        }
      }
    }
    byte[] signed = signedContent(id, timestamp, body);
    for (byte[] key : keys) {
      byte[] expected = hmac(key, signed);
      for (byte[] candidate : candidates) {
        if (MessageDigest.isEqual(expected, candidate)) {
          return id;
        }
      }
    }
    throw new CallbackRejectedException(
        RejectionReason.NO_MATCHING_SIGNATURE, "no v1 signature matches any secret");
  }

  /** Parses and verifies in one step: the callback, or a rejection. */
  public Callback verifyAndParse(Map<String, String> headers, byte[] body) {
    verify(headers, body);
    return Callback.parse(body);
  }

  /**
   * The {@code webhook-signature} value for a body, as the service computes it (for tests of a
   * receiver).
   */
  public static String sign(String secret, String id, long timestamp, byte[] body) {
    byte[] mac = hmac(decodeSecret(secret), signedContent(id, Long.toString(timestamp), body));
    return "v1," + Base64.getEncoder().encodeToString(mac);
  }

  private static long parseTimestamp(String timestamp) {
    String trimmed = timestamp.trim();
    if (!trimmed.matches("[0-9]{1,15}")) {
      throw new CallbackRejectedException(
          RejectionReason.INVALID_TIMESTAMP, "not whole seconds since the epoch: " + timestamp);
    }
    return Long.parseLong(trimmed);
  }

  private static byte[] signedContent(String id, String timestamp, byte[] body) {
    byte[] prefix = (id + "." + timestamp + ".").getBytes(StandardCharsets.UTF_8);
    byte[] content = new byte[prefix.length + body.length];
    System.arraycopy(prefix, 0, content, 0, prefix.length);
    System.arraycopy(body, 0, content, prefix.length, body.length);
    return content;
  }

  private static byte[] hmac(byte[] key, byte[] content) {
    try {
      Mac mac = Mac.getInstance(HMAC);
      mac.init(new SecretKeySpec(key, HMAC));
      return mac.doFinal(content);
    } catch (NoSuchAlgorithmException | InvalidKeyException e) {
      throw new IllegalStateException("HmacSHA256 unavailable", e);
    }
  }

  private static byte[] decodeSecret(String secret) {
    if (secret == null) {
      throw new CallbackRejectedException(RejectionReason.INVALID_SECRET, "null secret");
    }
    if (!secret.startsWith(SECRET_PREFIX)) {
      throw new CallbackRejectedException(
          RejectionReason.INVALID_SECRET, "a secret is written whsec_<base64>");
    }
    String encoded = secret.substring(SECRET_PREFIX.length());
    byte[] key;
    try {
      key = Base64.getDecoder().decode(encoded);
    } catch (IllegalArgumentException e) {
      throw new CallbackRejectedException(
          RejectionReason.INVALID_SECRET, "secret is not whsec_<base64>", e);
    }
    if (key.length == 0) {
      throw new CallbackRejectedException(RejectionReason.INVALID_SECRET, "empty secret");
    }
    return key;
  }

  private static boolean isBlank(String value) {
    return value == null || value.isBlank();
  }

  /** Builds a {@link WebhookVerifier}; at least one secret is required. */
  public static final class Builder {
    private final List<String> secrets = new ArrayList<>();
    private Duration tolerance = Duration.ofMinutes(5);
    private Clock clock = Clock.systemUTC();

    private Builder() {}

    /** A secret written {@code whsec_<base64>}; add several while rotating. */
    public Builder secret(String secret) {
      secrets.add(secret);
      return this;
    }

    public Builder secrets(List<String> secrets) {
      this.secrets.addAll(secrets);
      return this;
    }

    /** How far the timestamp may be from now, both ways (default 5 minutes). */
    public Builder tolerance(Duration tolerance) {
      this.tolerance = Objects.requireNonNull(tolerance, "tolerance");
      return this;
    }

    /** The clock the timestamp is compared with (default the system clock). */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * @throws CallbackRejectedException with {@link RejectionReason#INVALID_SECRET} for a secret
     *     that is not {@code whsec_<base64>}, or when there is none
     */
    public WebhookVerifier build() {
      if (secrets.isEmpty()) {
        throw new CallbackRejectedException(RejectionReason.INVALID_SECRET, "no secret given");
      }
      List<byte[]> keys = new ArrayList<>();
      for (String secret : secrets) {
        keys.add(decodeSecret(secret));
      }
      return new WebhookVerifier(List.copyOf(keys), tolerance, clock);
    }
  }
}
