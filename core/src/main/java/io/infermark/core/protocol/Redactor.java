package io.infermark.core.protocol;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Replaces secrets with {@code ***} in text bound for records, reports, exceptions and logs: the
 * API key, the values of sensitive headers and URL userinfo. Servers echo rejected keys in their
 * error bodies, and HTTP clients name URLs in their exceptions; this is the one place such text
 * passes. Secrets shorter than 4 characters are not redacted: replacing them would mangle ordinary
 * text without protecting anything.
 */
final class Redactor {

  /** Header names whose values are secret unless the user marks more. */
  static final Set<String> SENSITIVE_HEADERS =
      Set.of("authorization", "proxy-authorization", "x-api-key", "api-key", "cookie", "set-cookie");

  private static final Redactor NONE = new Redactor(List.of());
  private static final int MIN_SECRET_CHARS = 4;

  private final List<String> secrets;

  private Redactor(List<String> secrets) {
    this.secrets = secrets;
  }

  /** Redacts the given secrets (longest first, so a key containing another is replaced whole). */
  static Redactor of(Collection<String> secrets) {
    List<String> kept = new ArrayList<>();
    for (String s : secrets) {
      if (s.length() >= MIN_SECRET_CHARS && !kept.contains(s)) {
        kept.add(s);
      }
    }
    if (kept.isEmpty()) {
      return NONE;
    }
    kept.sort(Comparator.comparingInt(String::length).reversed());
    return new Redactor(List.copyOf(kept));
  }

  /**
   * This redactor plus the values of sensitive headers among {@code headers}; this one if there are
   * none. Pass {@code sensitiveNames} empty to treat every header as sensitive (a request's own
   * headers are: their values never appear in records, logs or reports).
   */
  Redactor withHeaders(Map<String, String> headers, Set<String> sensitiveNames) {
    if (headers.isEmpty()) {
      return this;
    }
    List<String> more = new ArrayList<>(secrets);
    for (Map.Entry<String, String> h : headers.entrySet()) {
      if (sensitiveNames.isEmpty() || sensitiveNames.contains(h.getKey().toLowerCase(Locale.ROOT))) {
        more.add(h.getValue());
        String v = h.getValue();
        int space = v.indexOf(' '); // "Bearer <token>": the token alone may be echoed
        if (space > 0) {
          more.add(v.substring(space + 1).strip());
        }
      }
    }
    return more.size() == secrets.size() ? this : of(more);
  }

  boolean isEmpty() {
    return secrets.isEmpty();
  }

  /** The text with every secret replaced by {@code ***}. */
  String redact(String text) {
    String out = text;
    for (String s : secrets) {
      if (out.contains(s)) {
        out = out.replace(s, "***");
      }
    }
    return out;
  }

  @Override
  public String toString() {
    return "Redactor[" + secrets.size() + " secrets]";
  }
}
