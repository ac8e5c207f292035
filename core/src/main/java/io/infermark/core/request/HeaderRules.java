package io.infermark.core.request;

import java.util.Objects;

/**
 * The rule every HTTP header infermark sends obeys: a token name (RFC 9110) and a value without CR,
 * LF or NUL, which would split the request. Checked where a header enters the API
 * ({@link GenerationParams.Builder#header}) and again where a transport builds one.
 */
public final class HeaderRules {

  private HeaderRules() {}

  /**
   * Throws unless {@code name} is a non-empty HTTP token and {@code value} holds no CR, LF or NUL.
   * The message names the header, never its value.
   *
   * @throws IllegalArgumentException if either is invalid
   */
  public static void check(String name, String value) {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(value, "value");
    if (name.isEmpty() || !name.chars().allMatch(HeaderRules::isTokenChar)) {
      throw new IllegalArgumentException("invalid header name: \"" + name + "\"");
    }
    if (value.chars().anyMatch(c -> c == '\r' || c == '\n' || c == 0)) {
      throw new IllegalArgumentException("header " + name + " has a value containing CR, LF or NUL");
    }
  }

  private static boolean isTokenChar(int c) {
    return c > 32 && c < 127 && "\"(),/:;<=>?@[\\]{}".indexOf(c) < 0;
  }
}
