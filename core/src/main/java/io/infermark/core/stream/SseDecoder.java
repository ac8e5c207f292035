package io.infermark.core.stream;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * Decodes a {@code text/event-stream} body into events following the WHATWG EventSource parsing
 * rules, for bytes that arrive in arbitrary pieces.
 *
 * <p>It works on bytes and never decodes text unless asked: CR and LF never occur inside a
 * multi-byte UTF-8 sequence, so lines can be split before decoding, and a character split across
 * reads is simply carried over with the rest of its line. Line endings may be LF, CRLF (even when
 * split across reads) or a lone CR; U+2028 and other Unicode separators do not end lines. A UTF-8
 * byte order mark at the very start is skipped. Comment lines ({@code :keep-alive}) produce nothing.
 * {@code data} lines accumulate, joined by LF; a blank line dispatches the event when its data is
 * non-empty and resets the event type either way; {@code id} values containing NUL are ignored;
 * {@code retry} and unknown fields are ignored. At {@link #end} an event that has not been
 * terminated by a blank line is discarded, as the specification requires.
 *
 * <p>One deliberate extension: llama.cpp servers (Feb 2025 builds) report mid-stream failures as a
 * non-standard {@code error: {json}} field. Specification parsers drop it silently, which would
 * turn a server error into a truncated stream; this decoder passes it to
 * {@link Listener#onErrorField} instead (still without dispatching an event).
 *
 * <p>What it buffers is bounded by {@link StreamLimits}: a line or an event that outgrows them is
 * reported through {@link Listener#onLimitExceeded} and the rest of the body is ignored.
 *
 * <p>Not thread-safe; one decoder per response body.
 */
public final class SseDecoder {

  /** Receives what an {@link SseDecoder} decodes. */
  public interface Listener {

    /**
     * An event was dispatched.
     *
     * @param event the event; a view that is only valid during this call
     * @param nanoTime the clock reading passed with the read that completed the event
     */
    void onEvent(Event event, long nanoTime);

    /**
     * A non-standard {@code error} field arrived (llama.cpp). The default ignores it, as the
     * specification does.
     *
     * @param value the field value, decoded as UTF-8
     * @param nanoTime the clock reading passed with the read that completed the line
     */
    default void onErrorField(String value, long nanoTime) {}

    /**
     * A blank line ended an event that named a type but carried no {@code data} line. The WHATWG
     * rules dispatch nothing for it, and neither does this decoder; some clients (openai-python)
     * surface it, so it is reported here for callers that want to see what they would.
     */
    default void onDatalessEvent(String type, long nanoTime) {}

    /**
     * A line or an event outgrew its {@link StreamLimits}; the decoder ignores the rest of the body.
     *
     * @param message what was exceeded, e.g. {@code line exceeds 1048576 bytes}
     */
    default void onLimitExceeded(String message, long nanoTime) {}
  }

  /**
   * One dispatched event. The decoder reuses a single instance, so read it inside
   * {@link Listener#onEvent} and do not keep it.
   */
  public static final class Event {
    private byte[] data = new byte[256];
    private int dataLength;
    private byte[] type = new byte[32];
    private int typeLength;
    private byte[] lastEventId = new byte[0];
    private int lastEventIdLength;

    private Event() {}

    /** The event type, {@code "message"} when the stream named none. */
    public String type() {
      return typeLength == 0 ? "message" : new String(type, 0, typeLength, StandardCharsets.UTF_8);
    }

    /** The event data: its {@code data} lines joined by LF. */
    public String data() {
      return new String(data, 0, dataLength, StandardCharsets.UTF_8);
    }

    /** The last event ID seen on the stream so far, empty when there was none. */
    public String lastEventId() {
      return new String(lastEventId, 0, lastEventIdLength, StandardCharsets.UTF_8);
    }

    byte[] dataBytes() {
      return data;
    }

    int dataLength() {
      return dataLength;
    }

    /** Compares the type without decoding it; {@code name} is ASCII. The default type is "message". */
    boolean typeIs(byte[] name) {
      if (typeLength == 0) {
        return Arrays.equals(name, MESSAGE);
      }
      return Arrays.equals(type, 0, typeLength, name, 0, name.length);
    }

    boolean hasExplicitType() {
      return typeLength != 0;
    }
  }

  private static final byte CR = '\r';
  private static final byte LF = '\n';
  private static final byte[] BOM = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};
  private static final int BOM_DONE = BOM.length;
  private static final byte[] MESSAGE = ascii("message");
  private static final byte[] FIELD_DATA = ascii("data");
  private static final byte[] FIELD_EVENT = ascii("event");
  private static final byte[] FIELD_ID = ascii("id");
  private static final byte[] FIELD_ERROR = ascii("error");

  private final Listener listener;
  private final int maxLineBytes;
  private final int maxEventBytes;
  private boolean overflowed;
  private final Event event = new Event();
  /** Holds a line that spans reads; lines inside one read are parsed in place. */
  private byte[] line = new byte[256];
  private int lineLength;
  private boolean afterCr;
  private int bomMatched;

  /** A decoder that reports to {@code listener}, within the default {@link StreamLimits}. */
  public SseDecoder(Listener listener) {
    this(listener, StreamLimits.DEFAULT);
  }

  /** A decoder that reports to {@code listener} and buffers within {@code limits}. */
  public SseDecoder(Listener listener, StreamLimits limits) {
    this.listener = Objects.requireNonNull(listener, "listener");
    this.maxLineBytes = limits.maxLineBytes();
    this.maxEventBytes = limits.maxEventBytes();
  }

  /**
   * Consumes the next bytes of the body; events they complete are dispatched before this returns.
   *
   * @param bytes buffer holding the bytes
   * @param offset start of the bytes in the buffer
   * @param length number of bytes
   * @param nanoTime clock reading taken when the read returned, passed on with each event
   */
  public void feed(byte[] bytes, int offset, int length, long nanoTime) {
    Objects.checkFromIndexSize(offset, length, bytes.length);
    if (overflowed) {
      return;
    }
    int i = offset;
    int end = offset + length;
    if (bomMatched < BOM_DONE) {
      i = skipBom(bytes, i, end);
    }
    while (i < end) {
      if (afterCr) {
        afterCr = false;
        if (bytes[i] == LF) {
          i++;
          continue;
        }
      }
      int eol = i;
      while (eol < end && bytes[eol] != LF && bytes[eol] != CR) {
        eol++;
      }
      if (eol == end) {
        if (lineLength + (end - i) > maxLineBytes) {
          overflow("line exceeds " + maxLineBytes + " bytes", nanoTime);
          return;
        }
        appendToLine(bytes, i, end - i);
        return;
      }
      if (lineLength + (eol - i) > maxLineBytes) {
        overflow("line exceeds " + maxLineBytes + " bytes", nanoTime);
        return;
      }
      if (lineLength == 0) {
        processLine(bytes, i, eol, nanoTime);
      } else {
        appendToLine(bytes, i, eol - i);
        int n = lineLength;
        lineLength = 0;
        processLine(line, 0, n, nanoTime);
      }
      if (overflowed) {
        return;
      }
      afterCr = bytes[eol] == CR;
      i = eol + 1;
    }
  }

  /**
   * The body ended. A line or event that was not terminated is discarded, as the specification
   * requires; nothing is dispatched.
   */
  public void end() {
    lineLength = 0;
    event.dataLength = 0;
    event.typeLength = 0;
    afterCr = false;
  }

  private int skipBom(byte[] bytes, int i, int end) {
    while (i < end && bomMatched < BOM_DONE) {
      if (bytes[i] != BOM[bomMatched]) {
        // Not a BOM after all: the bytes held back so far belong to the first line.
        appendToLine(BOM, 0, bomMatched);
        bomMatched = BOM_DONE;
        return i;
      }
      bomMatched++;
      i++;
    }
    return i;
  }

  private void overflow(String message, long nanoTime) {
    overflowed = true;
    lineLength = 0;
    event.dataLength = 0;
    event.typeLength = 0;
    line = new byte[0];
    event.data = new byte[0];
    listener.onLimitExceeded(message, nanoTime);
  }

  private void appendToLine(byte[] bytes, int from, int n) {
    if (lineLength + n > line.length) {
      line = Arrays.copyOf(line, Math.max(line.length * 2, lineLength + n));
    }
    System.arraycopy(bytes, from, line, lineLength, n);
    lineLength += n;
  }

  private void processLine(byte[] b, int start, int end, long nanoTime) {
    if (start == end) {
      dispatch(nanoTime);
      return;
    }
    if (b[start] == ':') {
      return;
    }
    int colon = start;
    while (colon < end && b[colon] != ':') {
      colon++;
    }
    int valueStart;
    if (colon == end) {
      valueStart = end;
    } else {
      valueStart = colon + 1;
      if (valueStart < end && b[valueStart] == ' ') {
        valueStart++;
      }
    }
    int nameLength = colon - start;
    if (is(b, start, nameLength, FIELD_DATA)) {
      if (event.dataLength + (end - valueStart) + 1 > maxEventBytes) {
        overflow("event data exceeds " + maxEventBytes + " bytes", nanoTime);
        return;
      }
      appendData(b, valueStart, end - valueStart);
    } else if (is(b, start, nameLength, FIELD_EVENT)) {
      event.type = copy(event.type, b, valueStart, end - valueStart);
      event.typeLength = end - valueStart;
    } else if (is(b, start, nameLength, FIELD_ID)) {
      if (!containsNul(b, valueStart, end)) {
        event.lastEventId = copy(event.lastEventId, b, valueStart, end - valueStart);
        event.lastEventIdLength = end - valueStart;
      }
    } else if (is(b, start, nameLength, FIELD_ERROR)) {
      listener.onErrorField(new String(b, valueStart, end - valueStart, StandardCharsets.UTF_8), nanoTime);
    }
    // "retry" only tunes reconnection, which a benchmark client never does; other fields are ignored.
  }

  private void appendData(byte[] b, int from, int n) {
    Event e = event;
    if (e.dataLength + n + 1 > e.data.length) {
      e.data = Arrays.copyOf(e.data, Math.max(e.data.length * 2, e.dataLength + n + 1));
    }
    System.arraycopy(b, from, e.data, e.dataLength, n);
    e.dataLength += n;
    e.data[e.dataLength++] = LF;
  }

  private void dispatch(long nanoTime) {
    Event e = event;
    if (e.dataLength == 0) {
      if (e.typeLength > 0) {
        listener.onDatalessEvent(e.type(), nanoTime);
      }
      e.typeLength = 0;
      return;
    }
    e.dataLength--; // the LF appended after the last data line
    try {
      listener.onEvent(e, nanoTime);
    } finally {
      e.dataLength = 0;
      e.typeLength = 0;
    }
  }

  private static boolean is(byte[] b, int start, int length, byte[] name) {
    return Arrays.equals(b, start, start + length, name, 0, name.length);
  }

  private static boolean containsNul(byte[] b, int from, int to) {
    for (int i = from; i < to; i++) {
      if (b[i] == 0) {
        return true;
      }
    }
    return false;
  }

  private static byte[] copy(byte[] target, byte[] src, int from, int n) {
    byte[] t = target.length >= n ? target : new byte[Math.max(n, target.length * 2)];
    System.arraycopy(src, from, t, 0, n);
    return t;
  }

  static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
