package io.infermark.core.stream;

import java.nio.charset.StandardCharsets;

/**
 * A pull scanner over one JSON document held in a byte range, built for the per-chunk hot path:
 * it walks objects and arrays, compares keys against constant byte arrays, skips values, and reads
 * numbers without allocating. Strings are located, not decoded; {@link #decodeString} decodes one
 * only when a caller needs its text.
 *
 * <p>Everything it passes over is validated against RFC 8259 (skipped values included), so a
 * malformed document raises {@link MalformedJsonException} rather than being half-read. The
 * scanner is reused: {@link #reset} points it at the next document.
 *
 * <p>Usage: {@code beginObject(); while (nextField()) { if (fieldIs(KEY)) ... else skipValue(); }}.
 * Every field's or element's value must be consumed (read or skipped) before the next call to
 * {@link #nextField} or {@link #nextElement}.
 */
final class JsonScanner {

  /** Thrown when the document is not valid JSON; the message says what was expected where. */
  static final class MalformedJsonException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    MalformedJsonException(String message) {
      super(message);
    }
  }

  /** Value types returned by {@link #peek()}: the first byte of each kind of value. */
  static final byte OBJECT = '{';
  static final byte ARRAY = '[';
  static final byte STRING = '"';
  static final byte NUMBER = '0';
  static final byte TRUE = 't';
  static final byte FALSE = 'f';
  static final byte NULL = 'n';

  /** Deeper nesting than any inference server produces; the limit keeps skipping off the stack's edge. */
  static final int MAX_DEPTH = 256;

  private static final byte[] LITERAL_TRUE = {'t', 'r', 'u', 'e'};
  private static final byte[] LITERAL_FALSE = {'f', 'a', 'l', 's', 'e'};
  private static final byte[] LITERAL_NULL = {'n', 'u', 'l', 'l'};
  private static final double[] POWERS_OF_TEN = {
      1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
      1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

  private byte[] buf = new byte[0];
  private int origin;
  private int pos;
  private int end;
  private int depth;
  /** True right after '{' or '[': the next member needs no comma before it. */
  private boolean afterOpen;

  private int keyStart;
  private int keyEnd;
  private boolean keyEscaped;

  private int strStart;
  private int strEnd;
  private boolean strEscaped;

  /** Points the scanner at {@code length} bytes of {@code bytes} from {@code offset}. */
  void reset(byte[] bytes, int offset, int length) {
    buf = bytes;
    origin = offset;
    pos = offset;
    end = offset + length;
    depth = 0;
    afterOpen = false;
  }

  /** True when only whitespace is left before the end of the range. */
  boolean atEnd() {
    skipWhitespace();
    return pos >= end;
  }

  /** Requires that nothing but whitespace follows the value just read. */
  void endDocument() {
    if (!atEnd()) {
      throw error("unexpected " + describe(buf[pos]) + " after the end of the JSON value");
    }
  }

  /**
   * The type of the next value, one of {@link #OBJECT}, {@link #ARRAY}, {@link #STRING},
   * {@link #NUMBER}, {@link #TRUE}, {@link #FALSE}, {@link #NULL}; consumes nothing.
   */
  byte peek() {
    skipWhitespace();
    if (pos >= end) {
      throw error("unexpected end of input, expected a value");
    }
    byte c = buf[pos];
    switch (c) {
      case '{': case '[': case '"': case 't': case 'f': case 'n':
        return c;
      default:
        if (c == '-' || (c >= '0' && c <= '9')) {
          return NUMBER;
        }
        throw unexpected(c, "a value");
    }
  }

  // ---- objects and arrays -------------------------------------------------------------------

  void beginObject() {
    expectOpen(OBJECT);
  }

  void beginArray() {
    expectOpen(ARRAY);
  }

  /**
   * Begins the object that is next and returns true; any other value ({@code null} included) is
   * skipped and gives false. For the many fields that servers send as an object or as null.
   */
  boolean enterObject() {
    return enter(OBJECT);
  }

  /** Begins the array that is next and returns true; any other value is skipped and gives false. */
  boolean enterArray() {
    return enter(ARRAY);
  }

  /**
   * Moves to the next field of the current object and consumes its key and colon; false (having
   * consumed the closing brace) when the object has no more fields.
   */
  boolean nextField() {
    if (!nextMember('}', "an object")) {
      return false;
    }
    if (pos >= end) {
      throw error("unexpected end of input inside an object");
    }
    byte c = buf[pos];
    if (c != '"') {
      throw unexpected(c, "a field name");
    }
    scanString();
    keyStart = strStart;
    keyEnd = strEnd;
    keyEscaped = strEscaped;
    skipWhitespace();
    if (pos >= end || buf[pos] != ':') {
      throw error("expected ':' after a field name");
    }
    pos++;
    return true;
  }

  /** Moves to the next element of the current array; false (having consumed ']') at its end. */
  boolean nextElement() {
    return nextMember(']', "an array");
  }

  /** Whether the current field's key equals {@code name} (ASCII), escapes in the key decoded. */
  boolean fieldIs(byte[] name) {
    return contentEquals(keyStart, keyEnd, keyEscaped, name);
  }

  /** Decodes the current field's key. Allocates. */
  String keyValue() {
    return decodeString(buf, keyStart, keyEnd, keyEscaped);
  }

  /** Skips the next value of any type, validating it. */
  void skipValue() {
    switch (peek()) {
      case OBJECT:
        beginObject();
        while (nextField()) {
          skipValue();
        }
        break;
      case ARRAY:
        beginArray();
        while (nextElement()) {
          skipValue();
        }
        break;
      case STRING:
        scanString();
        break;
      case NUMBER:
        scanNumber();
        break;
      default:
        readLiteral();
        break;
    }
  }

  /** Consumes a {@code null} if one is next; false (consuming nothing) otherwise. */
  boolean skipNull() {
    if (peek() == NULL) {
      expectLiteral(LITERAL_NULL);
      return true;
    }
    return false;
  }

  /**
   * Consumes the next value and says whether it is anything but {@code null}: for fields whose
   * presence is what counts, such as an error object.
   */
  boolean readNonNull() {
    if (skipNull()) {
      return false;
    }
    skipValue();
    return true;
  }

  // ---- strings --------------------------------------------------------------------------------

  /** Consumes a string and remembers where its raw content lies (see {@link #stringStart()}). */
  void readString() {
    if (peek() != STRING) {
      throw unexpected(buf[pos], "a string");
    }
    scanString();
  }

  /**
   * Consumes the next value and says whether it is a non-empty string (remembered as by
   * {@link #readString}); null, other types and {@code ""} give false.
   */
  boolean readNonEmptyString() {
    return readStringIfPresent() && strEnd > strStart;
  }

  /** Consumes the next value; true if it is a string, which is then remembered. Others are skipped. */
  boolean readStringIfPresent() {
    if (peek() == STRING) {
      scanString();
      return true;
    }
    skipValue();
    return false;
  }

  /** Start of the last string's raw content (after the opening quote). */
  int stringStart() {
    return strStart;
  }

  /** End of the last string's raw content (at the closing quote). */
  int stringEnd() {
    return strEnd;
  }

  /** Whether the last string contains escape sequences. */
  boolean stringEscaped() {
    return strEscaped;
  }

  /** Whether the last string's content equals {@code ascii}, escapes decoded. */
  boolean stringIs(byte[] ascii) {
    return contentEquals(strStart, strEnd, strEscaped, ascii);
  }

  /** Decodes the last string. Allocates; for rare paths and text capture. */
  String stringValue() {
    return decodeString(buf, strStart, strEnd, strEscaped);
  }

  /** The buffer the scanner reads; positions from {@link #stringStart()} etc. index into it. */
  byte[] buffer() {
    return buf;
  }

  /**
   * Current position, to slice out a raw value: call after {@link #peek()} for its start and after
   * {@link #skipValue()} for its end.
   */
  int position() {
    return pos;
  }

  /**
   * Decodes the raw content of a JSON string: UTF-8 bytes, with escapes (including
   * {@code \\uXXXX} surrogate pairs) resolved; malformed UTF-8 becomes U+FFFD.
   */
  static String decodeString(byte[] b, int start, int end, boolean escaped) {
    if (!escaped) {
      return new String(b, start, end - start, StandardCharsets.UTF_8);
    }
    StringBuilder sb = new StringBuilder(end - start);
    int run = start;
    int i = start;
    while (i < end) {
      if (b[i] != '\\') {
        i++;
        continue;
      }
      if (i > run) {
        sb.append(new String(b, run, i - run, StandardCharsets.UTF_8));
      }
      sb.append(escapedChar(b, i));
      i += escapeLength(b[i + 1]);
      run = i;
    }
    if (end > run) {
      sb.append(new String(b, run, end - run, StandardCharsets.UTF_8));
    }
    return sb.toString();
  }

  // ---- numbers and literals -----------------------------------------------------------------

  /**
   * Reads a number as a long. Integers are parsed exactly; a number with a fraction or exponent is
   * rounded toward zero, and values beyond the range of long saturate.
   */
  long readLong() {
    int start = numberStart();
    boolean integral = scanNumber();
    int digits = pos - start - (buf[start] == '-' ? 1 : 0);
    if (integral && digits <= 18) {
      int i = start;
      boolean negative = buf[i] == '-';
      if (negative) {
        i++;
      }
      long v = 0;
      for (; i < pos; i++) {
        v = v * 10 + (buf[i] - '0');
      }
      return negative ? -v : v;
    }
    return (long) parseDouble(start, pos);
  }

  /** Reads a number as a double, correctly rounded. */
  double readDouble() {
    int start = numberStart();
    scanNumber();
    return parseDouble(start, pos);
  }

  /** Reads {@code true} or {@code false}. */
  boolean readBoolean() {
    byte t = peek();
    if (t == TRUE) {
      expectLiteral(LITERAL_TRUE);
      return true;
    }
    if (t == FALSE) {
      expectLiteral(LITERAL_FALSE);
      return false;
    }
    throw unexpected(buf[pos], "true or false");
  }

  // ---- internals ------------------------------------------------------------------------------

  private boolean enter(byte open) {
    if (peek() != open) {
      skipValue();
      return false;
    }
    expectOpen(open);
    return true;
  }

  private void expectOpen(byte open) {
    if (peek() != open) {
      throw unexpected(buf[pos], open == OBJECT ? "an object" : "an array");
    }
    if (++depth > MAX_DEPTH) {
      throw error("nesting deeper than " + MAX_DEPTH + " levels");
    }
    pos++;
    afterOpen = true;
  }

  /**
   * Steps to the next member of the current object or array, past the comma that must separate it
   * from the one before and any whitespace; false (having consumed {@code closing}) at the end.
   */
  private boolean nextMember(char closing, String container) {
    skipWhitespace();
    if (pos >= end) {
      throw error("unexpected end of input inside " + container);
    }
    byte c = buf[pos];
    if (c == closing) {
      pos++;
      depth--;
      afterOpen = false;
      return false;
    }
    if (afterOpen) {
      afterOpen = false;
    } else if (c == ',') {
      pos++;
      skipWhitespace();
    } else {
      throw unexpected(c, "',' or '" + closing + "' in " + container);
    }
    return true;
  }

  /** Requires a number next; returns where it starts. */
  private int numberStart() {
    if (peek() != NUMBER) {
      throw unexpected(buf[pos], "a number");
    }
    return pos;
  }

  private void skipWhitespace() {
    while (pos < end) {
      byte c = buf[pos];
      if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
        return;
      }
      pos++;
    }
  }

  /** Scans a string starting at the opening quote; validates escapes and control characters. */
  private void scanString() {
    int i = pos + 1;
    boolean escaped = false;
    while (true) {
      if (i >= end) {
        pos = i;
        throw error("unterminated string");
      }
      byte c = buf[i];
      if (c == '"') {
        break;
      }
      if (c == '\\') {
        escaped = true;
        if (i + 1 >= end) {
          pos = i;
          throw error("unterminated string");
        }
        byte e = buf[i + 1];
        if (e == 'u') {
          if (i + 6 > end || hex4(buf, i + 2) < 0) {
            pos = i;
            throw error("invalid \\u escape in a string");
          }
          i += 6;
        } else if (unescape(e) != 0) {
          i += 2;
        } else {
          pos = i;
          throw error("invalid escape \\" + (char) (e & 0xFF) + " in a string");
        }
        continue;
      }
      if (c >= 0 && c < 0x20) {
        pos = i;
        throw error("unescaped control character " + describe(c) + " in a string");
      }
      i++;
    }
    strStart = pos + 1;
    strEnd = i;
    strEscaped = escaped;
    pos = i + 1;
  }

  /** Scans a number per the JSON grammar; returns true when it has no fraction or exponent. */
  private boolean scanNumber() {
    int i = pos;
    if (buf[i] == '-') {
      i++;
    }
    if (i < end && buf[i] == '0') {
      i++; // a leading zero stands alone
    } else {
      i = skipDigits(i, "invalid number: expected a digit");
    }
    boolean integral = true;
    if (i < end && buf[i] == '.') {
      integral = false;
      i = skipDigits(i + 1, "invalid number: expected a digit after '.'");
    }
    if (i < end && (buf[i] == 'e' || buf[i] == 'E')) {
      integral = false;
      i++;
      if (i < end && (buf[i] == '+' || buf[i] == '-')) {
        i++;
      }
      i = skipDigits(i, "invalid number: expected a digit in the exponent");
    }
    if (i < end && (isDigit(buf[i]) || buf[i] == '.' || buf[i] == '+' || buf[i] == '-')) {
      pos = i;
      throw error("invalid number: unexpected " + describe(buf[i]));
    }
    pos = i;
    return integral;
  }

  /** Skips the digits from {@code i}, at least one as the grammar requires; returns their end. */
  private int skipDigits(int i, String noDigit) {
    int start = i;
    while (i < end && isDigit(buf[i])) {
      i++;
    }
    if (i == start) {
      pos = i;
      throw error(noDigit);
    }
    return i;
  }

  /**
   * Parses a validated number. Exact without allocating when the significand fits in 53 bits and
   * the decimal exponent is within ±22 (both operands are then exact doubles and one IEEE
   * operation rounds correctly); longer numbers fall back to {@link Double#parseDouble}.
   */
  private double parseDouble(int start, int stop) {
    int i = start;
    boolean negative = buf[i] == '-';
    if (negative) {
      i++;
    }
    // The digits of the integer part and of the fraction form one significand; each fraction digit
    // lowers the exponent. Past 15 significant digits the significand may not be exact (and may
    // overflow), so the slow path takes over.
    long mantissa = 0;
    int significant = 0;
    int exponent = 0;
    boolean fraction = false;
    for (; i < stop; i++) {
      byte c = buf[i];
      if (c == '.') {
        fraction = true;
        continue;
      }
      if (!isDigit(c)) {
        break;
      }
      if (mantissa != 0 || c != '0') {
        significant++;
      }
      mantissa = mantissa * 10 + (c - '0');
      if (fraction) {
        exponent--;
      }
    }
    if (i < stop) { // exponent part
      i++;
      boolean negativeExp = buf[i] == '-';
      if (buf[i] == '+' || buf[i] == '-') {
        i++;
      }
      int e = 0;
      for (; i < stop; i++) {
        e = Math.min(e * 10 + (buf[i] - '0'), 100_000);
      }
      exponent += negativeExp ? -e : e;
    }
    if (significant <= 15 && exponent >= -22 && exponent <= 22) {
      double v = mantissa;
      v = exponent < 0 ? v / POWERS_OF_TEN[-exponent] : v * POWERS_OF_TEN[exponent];
      return negative ? -v : v;
    }
    return Double.parseDouble(new String(buf, start, stop - start, StandardCharsets.US_ASCII));
  }

  private void readLiteral() {
    byte t = peek();
    expectLiteral(t == TRUE ? LITERAL_TRUE : t == FALSE ? LITERAL_FALSE : LITERAL_NULL);
  }

  private void expectLiteral(byte[] literal) {
    if (pos + literal.length > end || !plainEquals(pos, pos + literal.length, literal)) {
      throw error("invalid literal, expected " + new String(literal, StandardCharsets.US_ASCII));
    }
    pos += literal.length;
  }

  /** Whether the raw content of a key or string equals {@code ascii}, escapes decoded. */
  private boolean contentEquals(int start, int stop, boolean escaped, byte[] ascii) {
    return escaped ? escapedEquals(start, stop, ascii) : plainEquals(start, stop, ascii);
  }

  /** Compares the bytes from {@code start} to {@code stop} with {@code ascii}. */
  private boolean plainEquals(int start, int stop, byte[] ascii) {
    int n = stop - start;
    if (n != ascii.length) {
      return false;
    }
    for (int i = 0; i < n; i++) {
      if (buf[start + i] != ascii[i]) {
        return false;
      }
    }
    return true;
  }

  /** Compares an escaped raw string with ASCII bytes, decoding escapes on the fly. */
  private boolean escapedEquals(int start, int stop, byte[] ascii) {
    int i = start;
    int k = 0;
    while (i < stop) {
      if (k >= ascii.length) {
        return false;
      }
      int c;
      if (buf[i] == '\\') {
        c = escapedChar(buf, i);
        i += escapeLength(buf[i + 1]);
      } else {
        c = buf[i] & 0xFF;
        i++;
      }
      if (c != ascii[k++]) {
        return false;
      }
    }
    return k == ascii.length;
  }

  /** The character the validated escape sequence at {@code i} (its backslash) stands for. */
  private static char escapedChar(byte[] b, int i) {
    byte e = b[i + 1];
    return e == 'u' ? (char) hex4(b, i + 2) : unescape(e);
  }

  /** The length of a validated escape sequence, given the letter after its backslash. */
  private static int escapeLength(byte e) {
    return e == 'u' ? 6 : 2;
  }

  /** The character an escape letter stands for, 0 when it is not a valid escape. */
  private static char unescape(byte e) {
    switch (e) {
      case '"': return '"';
      case '\\': return '\\';
      case '/': return '/';
      case 'b': return '\b';
      case 'f': return '\f';
      case 'n': return '\n';
      case 'r': return '\r';
      case 't': return '\t';
      default: return 0;
    }
  }

  /** Value of four hex digits at {@code i}, or -1 if they are not hex digits. */
  private static int hex4(byte[] b, int i) {
    int v = 0;
    for (int k = 0; k < 4; k++) {
      int d = Character.digit(b[i + k], 16);
      if (d < 0) {
        return -1;
      }
      v = (v << 4) | d;
    }
    return v;
  }

  private static boolean isDigit(byte c) {
    return c >= '0' && c <= '9';
  }

  private MalformedJsonException error(String what) {
    return new MalformedJsonException(what + " at offset " + (pos - origin));
  }

  private MalformedJsonException unexpected(byte c, String expected) {
    return error("unexpected " + describe(c) + ", expected " + expected);
  }

  private static String describe(byte c) {
    if (c >= 0x20 && c < 0x7F) {
      return "'" + (char) c + "'";
    }
    return String.format("byte 0x%02X", c & 0xFF);
  }
}
