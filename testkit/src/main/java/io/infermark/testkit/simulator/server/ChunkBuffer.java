package io.infermark.testkit.simulator.server;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Response bytes gathered for one write, with room reserved in front for an HTTP chunk header, so
 * a whole step's events go out framed as one chunk in one buffer: no copy between gathering and
 * writing. Reused between writes; not thread-safe.
 */
public final class ChunkBuffer {

  // Up to 16 hex digits of length plus CRLF.
  private static final int HEAD = 18;
  private static final byte[] HEX = "0123456789abcdef".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
  private static final byte[] LAST_CHUNK = {'0', '\r', '\n', '\r', '\n'};

  private byte[] bytes;
  private int end = HEAD;

  public ChunkBuffer(int initialCapacity) {
    bytes = new byte[HEAD + Math.max(initialCapacity, 64)];
  }

  public void append(byte[] b) {
    append(b, 0, b.length);
  }

  public void append(byte[] b, int offset, int length) {
    ensure(length);
    System.arraycopy(b, offset, bytes, end, length);
    end += length;
  }

  public void append(int b) {
    ensure(1);
    bytes[end++] = (byte) b;
  }

  /** A copy of the content gathered so far; the buffer is unchanged. */
  public byte[] contents() {
    return Arrays.copyOfRange(bytes, HEAD, end);
  }

  public boolean isEmpty() {
    return end == HEAD;
  }

  public int size() {
    return end - HEAD;
  }

  /**
   * The content framed as one HTTP chunk (nothing when empty), followed by the last chunk when
   * {@code last}; valid until the next change. Resets the buffer.
   */
  public ByteBuffer chunk(boolean last) {
    int size = size();
    int start = HEAD;
    if (size > 0) {
      ensure(2 + (last ? LAST_CHUNK.length : 0));
      bytes[end++] = '\r';
      bytes[end++] = '\n';
      bytes[--start] = '\n';
      bytes[--start] = '\r';
      int n = size;
      do {
        bytes[--start] = HEX[n & 0xf];
        n >>>= 4;
      } while (n != 0);
    }
    if (last) {
      ensure(LAST_CHUNK.length);
      System.arraycopy(LAST_CHUNK, 0, bytes, end, LAST_CHUNK.length);
      end += LAST_CHUNK.length;
    }
    ByteBuffer framed = ByteBuffer.wrap(bytes, start, end - start);
    end = HEAD;
    return framed;
  }

  /** The content as it is, unframed (a fixed-length body); valid until the next change. Resets the buffer. */
  public ByteBuffer raw() {
    ByteBuffer content = ByteBuffer.wrap(bytes, HEAD, end - HEAD);
    end = HEAD;
    return content;
  }

  private void ensure(int more) {
    if (end + more > bytes.length) {
      bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, end + more));
    }
  }
}
