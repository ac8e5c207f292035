package io.infermark.core.transport.netty;

import io.netty.handler.codec.DecoderException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;

/**
 * An incremental HTTP/1.1 response parser over byte arrays: status line, headers, and a body framed
 * by {@code Transfer-Encoding: chunked}, {@code Content-Length} or the end of the connection
 * (RFC 9112 §6.3). Body bytes are handed on as ranges of the array they arrived in, so a streamed
 * chunk costs no allocation and no copy; only a line split across two reads is gathered, in a
 * buffer bounded by {@link #MAX_LINE_BYTES}. Interim (1xx) responses are skipped.
 *
 * <p>Malformed input throws {@link Malformed} (a {@link DecoderException}, so it is classified as a
 * malformed response); after that the parser ignores everything. One parser per connection,
 * confined to its I/O thread.
 */
final class ResponseParser {

  /** The longest status, header or chunk-size line accepted. */
  static final int MAX_LINE_BYTES = 8 * 1024;
  /** The most header bytes one response head may have. */
  static final int MAX_HEAD_BYTES = 64 * 1024;
  /** The most header fields one response head may have. */
  static final int MAX_HEADERS = 256;

  /** What the parser found; every method runs on the connection's I/O thread. */
  interface Listener {
    /**
     * A final response head. Returns {@link #BODY} to read its body as its headers frame it,
     * {@link #NO_BODY} when it has none whatever the headers say (a response to {@code HEAD}), or
     * {@link #STOP} to stop parsing (the connection is closing).
     */
    int onHead(Head head);

    /** Body bytes (de-chunked); returns false to stop parsing. */
    boolean onBody(byte[] bytes, int offset, int length);

    /** The response ended; returns false to stop parsing. */
    boolean onEnd(boolean keepAlive);
  }

  static final int BODY = 0;
  static final int NO_BODY = 1;
  static final int STOP = 2;

  /** A response head: status code and header fields (names compared ignoring case). */
  static final class Head {
    final int status;
    final boolean http11;
    private final String[] names;
    private final String[] values;
    private final int count;

    Head(int status, boolean http11, String[] names, String[] values, int count) {
      this.status = status;
      this.http11 = http11;
      this.names = names;
      this.values = values;
      this.count = count;
    }

    /** The first value of header {@code name}, or null. */
    String get(String name) {
      for (int i = 0; i < count; i++) {
        if (names[i].equalsIgnoreCase(name)) {
          return values[i];
        }
      }
      return null;
    }

    /** Whether any {@code Connection} header lists {@code token}. */
    boolean connectionHas(String token) {
      for (int i = 0; i < count; i++) {
        if (names[i].equalsIgnoreCase("connection")) {
          for (String t : values[i].split(",")) {
            if (t.trim().equalsIgnoreCase(token)) {
              return true;
            }
          }
        }
      }
      return false;
    }

    int size() {
      return count;
    }

    @Override
    public String toString() {
      return "Head[" + status + ", " + count + " headers]";
    }
  }

  /** A response that breaks HTTP/1.1 framing. */
  static final class Malformed extends DecoderException {
    private static final long serialVersionUID = 1L;

    Malformed(String message) {
      super(message);
    }
  }

  private static final int STATUS = 0;
  private static final int HEADERS = 1;
  private static final int CHUNK_SIZE = 2;
  private static final int CHUNK_DATA = 3;
  private static final int CHUNK_END = 4;
  private static final int TRAILERS = 5;
  private static final int LENGTH = 6;
  private static final int UNTIL_CLOSE = 7;
  private static final int FAILED = 8;

  private int state = STATUS;
  /** Bytes of the current head, against {@link #MAX_HEAD_BYTES}. */
  private int headBytes;
  /** Body bytes still to come in the current chunk or {@code Content-Length} body. */
  private long remaining;
  private boolean keepAlive;
  /** Whether any byte of a response has been read since the last one ended. */
  private boolean started;

  private byte[] line = new byte[128];
  private int lineLength;

  private int status;
  private boolean http11;
  private String[] names = new String[16];
  private String[] values = new String[16];
  private int headerCount;

  /** True between responses: no byte of a next response has been read. */
  boolean idle() {
    return state == STATUS && !started;
  }

  /**
   * Parses {@code length} bytes from {@code offset}.
   *
   * @throws Malformed if they break HTTP/1.1 framing
   */
  void feed(byte[] b, int offset, int length, Listener listener) {
    int i = offset;
    int end = offset + length;
    while (i < end) {
      switch (state) {
        case STATUS, HEADERS, CHUNK_SIZE, CHUNK_END, TRAILERS -> {
          started = true;
          int lf = indexOfLf(b, i, end);
          if (lf < 0) {
            appendLine(b, i, end - i);
            return;
          }
          int lineStart;
          int lineEnd;
          byte[] src;
          if (lineLength == 0) {
            src = b;
            lineStart = i;
            lineEnd = lf;
            checkLineLength(lf - i);
          } else {
            appendLine(b, i, lf - i);
            src = line;
            lineStart = 0;
            lineEnd = lineLength;
          }
          int consumed = lf + 1 - i;
          i = lf + 1;
          if (lineEnd > lineStart && src[lineEnd - 1] == '\r') {
            lineEnd--;
          }
          boolean go = onLine(src, lineStart, lineEnd, consumed, listener);
          lineLength = 0;
          if (!go) {
            return;
          }
        }
        case CHUNK_DATA, LENGTH -> {
          int n = (int) Math.min(remaining, end - i);
          remaining -= n;
          int at = i;
          i += n;
          if (remaining == 0) {
            state = state == CHUNK_DATA ? CHUNK_END : STATUS;
          }
          if (!listener.onBody(b, at, n)) {
            return;
          }
          if (state == STATUS && !ended(listener)) {
            return;
          }
        }
        case UNTIL_CLOSE -> {
          int at = i;
          i = end;
          if (!listener.onBody(b, at, end - at)) {
            return;
          }
        }
        default -> {
          return; // FAILED: ignore everything
        }
      }
    }
  }

  /**
   * The connection reached its end. Returns true when that ended a response whose body runs until
   * the connection closes (after calling {@link Listener#onEnd}), false when no response was under way.
   *
   * @throws Malformed when a response was cut short
   */
  boolean inputClosed(Listener listener) {
    if (state == UNTIL_CLOSE) {
      state = STATUS;
      started = false;
      listener.onEnd(false);
      return true;
    }
    if (state == FAILED || idle()) {
      return false;
    }
    state = FAILED;
    throw new Malformed("the connection closed before the response ended");
  }

  private boolean onLine(byte[] b, int from, int to, int consumed, Listener listener) {
    switch (state) {
      case STATUS -> {
        if (from == to) {
          return true; // tolerate empty lines before a status line (RFC 9112 §2.2)
        }
        headBytes = consumed;
        parseStatus(b, from, to);
        headerCount = 0;
        state = HEADERS;
        return true;
      }
      case HEADERS -> {
        headBytes += consumed;
        if (headBytes > MAX_HEAD_BYTES) {
          throw fail("response headers exceed " + MAX_HEAD_BYTES + " bytes");
        }
        if (from < to) {
          parseHeader(b, from, to);
          return true;
        }
        return headEnded(listener);
      }
      case CHUNK_SIZE -> {
        remaining = parseChunkSize(b, from, to);
        state = remaining == 0 ? TRAILERS : CHUNK_DATA;
        return true;
      }
      case CHUNK_END -> {
        if (from != to) {
          throw fail("chunk data longer than its size");
        }
        state = CHUNK_SIZE;
        return true;
      }
      case TRAILERS -> {
        if (from == to) {
          state = STATUS;
          return ended(listener);
        }
        return true; // trailer fields are read and ignored
      }
      default -> throw new IllegalStateException("no line expected in state " + state);
    }
  }

  private boolean headEnded(Listener listener) {
    Head head = new Head(status, http11, names, values, headerCount);
    if (status >= 100 && status < 200 && status != 101) {
      state = STATUS; // interim response: its final one follows
      return true;
    }
    keepAlive = http11 ? !head.connectionHas("close") : head.connectionHas("keep-alive");
    int framing = listener.onHead(head);
    names = new String[Math.max(16, headerCount)];
    values = new String[names.length];
    headerCount = 0;
    if (framing == STOP) {
      state = FAILED;
      return false;
    }
    if (framing == NO_BODY || status == 204 || status == 304) {
      state = STATUS;
      return ended(listener);
    }
    String te = head.get("transfer-encoding");
    if (te != null) {
      String last = te.substring(te.lastIndexOf(',') + 1).trim();
      if (last.equalsIgnoreCase("chunked")) {
        state = CHUNK_SIZE;
      } else {
        keepAlive = false;
        state = UNTIL_CLOSE;
      }
      return true;
    }
    String cl = head.get("content-length");
    if (cl != null) {
      remaining = parseContentLength(head);
      if (remaining == 0) {
        state = STATUS;
        return ended(listener);
      }
      state = LENGTH;
      return true;
    }
    keepAlive = false;
    state = UNTIL_CLOSE;
    return true;
  }

  private boolean ended(Listener listener) {
    started = false;
    return listener.onEnd(keepAlive);
  }

  private void parseStatus(byte[] b, int from, int to) {
    // HTTP-version SP 3DIGIT [SP reason-phrase]
    if (to - from < 12 || b[from] != 'H' || b[from + 1] != 'T' || b[from + 2] != 'T' || b[from + 3] != 'P'
        || b[from + 4] != '/' || !digit(b[from + 5]) || b[from + 6] != '.' || !digit(b[from + 7])
        || b[from + 8] != ' ' || !digit(b[from + 9]) || !digit(b[from + 10]) || !digit(b[from + 11])
        || (to - from > 12 && b[from + 12] != ' ')) {
      throw fail("invalid status line \"" + printable(b, from, to) + "\"");
    }
    if (b[from + 5] != '1') {
      throw fail("unsupported HTTP version in \"" + printable(b, from, to) + "\"");
    }
    http11 = b[from + 7] != '0';
    status = (b[from + 9] - '0') * 100 + (b[from + 10] - '0') * 10 + (b[from + 11] - '0');
  }

  private void parseHeader(byte[] b, int from, int to) {
    if (b[from] == ' ' || b[from] == '\t') { // obsolete line folding: continues the previous value
      if (headerCount == 0) {
        throw fail("a folded header line before any header");
      }
      String more = trimmed(b, from, to);
      values[headerCount - 1] = values[headerCount - 1] + " " + more;
      return;
    }
    int colon = -1;
    for (int i = from; i < to; i++) {
      byte c = b[i];
      if (c == ':') {
        colon = i;
        break;
      }
      if (!tokenChar(c)) {
        throw fail("invalid header name in \"" + printable(b, from, to) + "\"");
      }
    }
    if (colon <= from) {
      throw fail("invalid header line \"" + printable(b, from, to) + "\"");
    }
    if (headerCount == MAX_HEADERS) {
      throw fail("more than " + MAX_HEADERS + " response headers");
    }
    if (headerCount == names.length) {
      names = Arrays.copyOf(names, names.length * 2);
      values = Arrays.copyOf(values, values.length * 2);
    }
    names[headerCount] = new String(b, from, colon - from, StandardCharsets.ISO_8859_1);
    values[headerCount] = trimmed(b, colon + 1, to);
    headerCount++;
  }

  private long parseContentLength(Head head) {
    long length = -1;
    for (int i = 0; i < head.size(); i++) {
      if (!head.names[i].equalsIgnoreCase("content-length")) {
        continue;
      }
      for (String part : head.values[i].split(",")) {
        long v = parseDecimal(part.trim());
        if (length >= 0 && v != length) {
          throw fail("conflicting Content-Length values " + length + " and " + v);
        }
        length = v;
      }
    }
    return length;
  }

  private long parseDecimal(String s) {
    if (s.isEmpty() || s.length() > 18) {
      throw fail("invalid Content-Length \"" + printable(s) + "\"");
    }
    long v = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') {
        throw fail("invalid Content-Length \"" + printable(s) + "\"");
      }
      v = v * 10 + (c - '0');
    }
    return v;
  }

  private long parseChunkSize(byte[] b, int from, int to) {
    long v = 0;
    int digits = 0;
    int i = from;
    for (; i < to; i++) {
      int d = Character.digit(b[i], 16);
      if (d < 0) {
        break;
      }
      if (++digits > 15) {
        throw fail("chunk size too large in \"" + printable(b, from, to) + "\"");
      }
      v = (v << 4) | d;
    }
    if (digits == 0 || (i < to && b[i] != ';' && b[i] != ' ' && b[i] != '\t')) {
      throw fail("invalid chunk size line \"" + printable(b, from, to) + "\"");
    }
    return v;
  }

  private void appendLine(byte[] b, int from, int n) {
    checkLineLength(lineLength + n);
    if (lineLength + n > line.length) {
      line = Arrays.copyOf(line, Math.min(MAX_LINE_BYTES, Math.max(line.length * 2, lineLength + n)));
    }
    System.arraycopy(b, from, line, lineLength, n);
    lineLength += n;
  }

  private void checkLineLength(int n) {
    if (n > MAX_LINE_BYTES) {
      throw fail((state == STATUS ? "status" : state == CHUNK_SIZE ? "chunk size" : "header") + " line exceeds "
          + MAX_LINE_BYTES + " bytes");
    }
  }

  private Malformed fail(String message) {
    state = FAILED;
    lineLength = 0;
    return new Malformed(message);
  }

  private static int indexOfLf(byte[] b, int from, int to) {
    for (int i = from; i < to; i++) {
      if (b[i] == '\n') {
        return i;
      }
    }
    return -1;
  }

  private static boolean digit(byte c) {
    return c >= '0' && c <= '9';
  }

  /** RFC 9110 §5.6.2 tchar. */
  private static boolean tokenChar(byte c) {
    if (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
      return true;
    }
    return "!#$%&'*+-.^_`|~".indexOf(c) >= 0 && c > 0;
  }

  private static String trimmed(byte[] b, int from, int to) {
    while (from < to && (b[from] == ' ' || b[from] == '\t')) {
      from++;
    }
    while (to > from && (b[to - 1] == ' ' || b[to - 1] == '\t')) {
      to--;
    }
    return new String(b, from, to - from, StandardCharsets.ISO_8859_1);
  }

  /** At most 80 characters of a line for an error message, control characters escaped. */
  private static String printable(byte[] b, int from, int to) {
    return printable(new String(b, from, Math.min(to - from, 80), StandardCharsets.ISO_8859_1));
  }

  private static String printable(String s) {
    StringBuilder out = new StringBuilder(Math.min(s.length(), 80));
    for (int i = 0; i < s.length() && i < 80; i++) {
      char c = s.charAt(i);
      out.append(c < 0x20 || c >= 0x7f ? String.format(Locale.ROOT, "\\x%02x", (int) c) : c);
    }
    return out.toString();
  }
}
