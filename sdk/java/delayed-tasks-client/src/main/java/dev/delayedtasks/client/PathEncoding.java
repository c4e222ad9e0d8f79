package dev.delayedtasks.client;

import java.nio.charset.StandardCharsets;

/** Percent-encoding of path segments and query values: everything but RFC 3986 unreserved. */
final class PathEncoding {
  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  private PathEncoding() {}

  static String encode(String value) {
    StringBuilder out = new StringBuilder(value.length());
    for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
      int c = b & 0xff;
      if ((c >= 'A' && c <= 'Z')
          || (c >= 'a' && c <= 'z')
          || (c >= '0' && c <= '9')
          || c == '-'
          || c == '.'
          || c == '_'
          || c == '~') {
        out.append((char) c);
      } else {
        out.append('%').append(HEX[c >> 4]).append(HEX[c & 0xf]);
      }
    }
    return out.toString();
  }
}
