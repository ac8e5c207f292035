package io.infermark.metrics.report;

/** HTML escaping for the report: every string from a user, a model or a server goes through here. */
final class Html {

  private Html() {}

  /** Escapes {@code & < > " '} so the text is inert in element content and quoted attribute values. */
  static String escape(String s) {
    StringBuilder b = new StringBuilder(s.length() + 16);
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '&' -> b.append("&amp;");
        case '<' -> b.append("&lt;");
        case '>' -> b.append("&gt;");
        case '"' -> b.append("&quot;");
        case '\'' -> b.append("&#39;");
        default -> b.append(c);
      }
    }
    return b.toString();
  }
}
