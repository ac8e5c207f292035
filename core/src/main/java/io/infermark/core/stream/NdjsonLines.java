package io.infermark.core.stream;

import java.util.Arrays;
import java.util.Objects;

/**
 * Splits a newline-delimited JSON body into lines for bytes that arrive in arbitrary pieces.
 * Lines end with LF; a CR before it is dropped and blank lines are skipped, so CRLF bodies and
 * stray empty lines from proxies pass. A last line without LF is still delivered at {@link #end},
 * since a complete JSON value needs no terminator to be understood.
 */
final class NdjsonLines {

  /** Receives complete, non-blank lines. */
  interface LineHandler {
    /** A line arrived; {@code line} is only valid during the call and excludes the line ending. */
    void onLine(byte[] line, int start, int end, long nanoTime);

    /** A line outgrew the limit; the rest of the body is ignored. */
    void onLimitExceeded(String message, long nanoTime);
  }

  private final LineHandler handler;
  private final int maxLineBytes;
  private boolean overflowed;
  private byte[] pending = new byte[256];
  private int pendingLength;

  NdjsonLines(LineHandler handler, int maxLineBytes) {
    this.handler = Objects.requireNonNull(handler, "handler");
    this.maxLineBytes = maxLineBytes;
  }

  void feed(byte[] bytes, int offset, int length, long nanoTime) {
    Objects.checkFromIndexSize(offset, length, bytes.length);
    if (overflowed) {
      return;
    }
    int i = offset;
    int end = offset + length;
    while (i < end) {
      int lf = i;
      while (lf < end && bytes[lf] != '\n') {
        lf++;
      }
      if (pendingLength + (lf - i) > maxLineBytes) {
        overflowed = true;
        pendingLength = 0;
        pending = new byte[0];
        handler.onLimitExceeded("line exceeds " + maxLineBytes + " bytes", nanoTime);
        return;
      }
      if (lf == end) {
        append(bytes, i, end - i);
        return;
      }
      if (pendingLength == 0) {
        deliver(bytes, i, lf, nanoTime);
      } else {
        append(bytes, i, lf - i);
        int n = pendingLength;
        pendingLength = 0;
        deliver(pending, 0, n, nanoTime);
      }
      i = lf + 1;
    }
  }

  void end(long nanoTime) {
    if (overflowed) {
      return;
    }
    int n = pendingLength;
    pendingLength = 0;
    if (n > 0) {
      deliver(pending, 0, n, nanoTime);
    }
  }

  private void deliver(byte[] b, int start, int end, long nanoTime) {
    while (start < end && SseStreamDecoder.isWhitespace(b[start])) {
      start++;
    }
    while (end > start && SseStreamDecoder.isWhitespace(b[end - 1])) {
      end--;
    }
    if (start < end) {
      handler.onLine(b, start, end, nanoTime);
    }
  }

  private void append(byte[] bytes, int from, int n) {
    if (pendingLength + n > pending.length) {
      pending = Arrays.copyOf(pending, Math.max(pending.length * 2, pendingLength + n));
    }
    System.arraycopy(bytes, from, pending, pendingLength, n);
    pendingLength += n;
  }
}
