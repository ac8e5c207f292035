package io.infermark.core.request;

import java.util.regex.Pattern;

/** Checks of base64 text that do not decode it. */
final class Base64Check {

  static final Pattern IMAGE_TYPES = Pattern.compile("image/(png|jpeg|gif|webp)");

  private Base64Check() {}

  static void require(String base64, String what) {
    int n = base64.length();
    if (n == 0 || n % 4 != 0) {
      throw new IllegalArgumentException(what + " data must be non-empty standard base64 (length a multiple of 4), "
          + "length was " + n);
    }
    for (int i = 0; i < n; i++) {
      char c = base64.charAt(i);
      boolean ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/'
          || (c == '=' && i >= n - 2 && (i == n - 1 || base64.charAt(n - 1) == '='));
      if (!ok) {
        throw new IllegalArgumentException(what + " data is not standard base64: character " + i + " is not allowed");
      }
    }
  }

  static long decodedBytes(String base64) {
    int n = base64.length();
    int pad = n > 0 && base64.charAt(n - 1) == '=' ? (n > 1 && base64.charAt(n - 2) == '=' ? 2 : 1) : 0;
    return (long) n / 4 * 3 - pad;
  }
}
