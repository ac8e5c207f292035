package io.infermark.core.capture;

import java.util.Arrays;
import java.util.OptionalLong;

/**
 * The arrival time, kind and token count of every chunk of one response, stored compactly.
 *
 * <p>Each chunk costs about five bytes: one byte holding its kind and (up to 29) its token count,
 * then the nanoseconds since the previous chunk (the first one since the request was sent) as a
 * variable-length integer (four bytes for gaps from 2 ms to 268 ms); larger token counts follow as
 * a variable-length integer.
 * Offsets are exact to the nanosecond of the {@link io.infermark.core.time.Clock} that captured them.
 * Iterate with {@link #cursor()}; the common aggregates (token-bearing count, first and last token
 * offsets) are precomputed.
 */
public final class ChunkTimeline {

  /** A token count that the server did not state for a chunk. */
  public static final int UNKNOWN_TOKENS = -1;

  private static final ChunkTimeline EMPTY = new ChunkTimeline(new byte[0], 0, 0, -1, -1, 0);
  /** Header byte: the kind in the low three bits, the token code above them. */
  private static final int KIND_BITS = 3;
  private static final int KIND_MASK = (1 << KIND_BITS) - 1;
  /** Token codes 0..30 mean tokens + 1 (so 0 is unknown); 31 means a varint of tokens + 1 follows. */
  private static final int TOKENS_ESCAPE = 31;

  static {
    if (ChunkKind.values().length > KIND_MASK + 1) {
      throw new ExceptionInInitializerError("ChunkKind outgrew the " + KIND_BITS + " header bits");
    }
  }

  private final byte[] data;
  private final int size;
  private final int tokenChunks;
  private final long firstTokenOffset;
  private final long lastTokenOffset;
  private final long lastOffset;

  private ChunkTimeline(byte[] data, int size, int tokenChunks, long firstTokenOffset, long lastTokenOffset,
      long lastOffset) {
    this.data = data;
    this.size = size;
    this.tokenChunks = tokenChunks;
    this.firstTokenOffset = firstTokenOffset;
    this.lastTokenOffset = lastTokenOffset;
    this.lastOffset = lastOffset;
  }

  /** A timeline with no chunks. */
  public static ChunkTimeline empty() {
    return EMPTY;
  }

  /** A builder for chunks appended in arrival order. */
  public static Builder builder() {
    return new Builder();
  }

  /** Number of chunks of every kind. */
  public int size() {
    return size;
  }

  /** Number of token-bearing chunks (content, reasoning, tool call). */
  public int tokenChunkCount() {
    return tokenChunks;
  }

  /** Nanoseconds from send to the first token-bearing chunk, if there was one. */
  public OptionalLong firstTokenOffsetNanos() {
    return firstTokenOffset < 0 ? OptionalLong.empty() : OptionalLong.of(firstTokenOffset);
  }

  /** Nanoseconds from send to the last token-bearing chunk, if there was one. */
  public OptionalLong lastTokenOffsetNanos() {
    return lastTokenOffset < 0 ? OptionalLong.empty() : OptionalLong.of(lastTokenOffset);
  }

  /** Nanoseconds from send to the first chunk of the given kind, if there was one. */
  public OptionalLong firstOffsetNanos(ChunkKind kind) {
    Cursor c = cursor();
    while (c.next()) {
      if (c.kind() == kind) {
        return OptionalLong.of(c.offsetNanos());
      }
    }
    return OptionalLong.empty();
  }

  /** Nanoseconds from send to the last chunk of any kind, or 0 when there are none. */
  public long lastOffsetNanos() {
    return Math.max(lastOffset, 0);
  }

  /**
   * Sum of the per-chunk token counts the server stated, over chunks of every kind; -1 if a
   * token-bearing chunk's count is unknown. A chunk that shows nothing may still carry a generated
   * token (TGI reports its EOS special token as an {@link ChunkKind#EMPTY} chunk of one token), so
   * its known count is part of the sum; an unknown count on such a chunk adds nothing.
   */
  public long knownTokenSum() {
    long sum = 0;
    Cursor c = cursor();
    while (c.next()) {
      if (c.tokens() == UNKNOWN_TOKENS) {
        if (c.kind().isTokenBearing()) {
          return -1;
        }
      } else {
        sum += c.tokens();
      }
    }
    return sum;
  }

  /** A fresh cursor positioned before the first chunk. */
  public Cursor cursor() {
    return new Cursor(data, size);
  }

  /**
   * A fresh cursor over the inter-token gaps (DESIGN.md's ITL): one step per token-bearing chunk that has
   * a token-bearing chunk before it, giving the gap between the two and the later chunk's tokens.
   * Role-only, empty and usage-only chunks neither start nor end a gap.
   */
  public TokenGaps gaps() {
    return new TokenGaps(cursor());
  }

  /** Number of bytes the encoded chunks occupy (excluding object headers). */
  public int encodedBytes() {
    return data.length;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ChunkTimeline t && t.size == size && Arrays.equals(t.data, data);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(data);
  }

  @Override
  public String toString() {
    return "ChunkTimeline[" + size + " chunks, " + tokenChunks + " token-bearing"
        + (firstTokenOffset < 0 ? "" : String.format(", first token %.3f ms, last %.3f ms",
            firstTokenOffset / 1e6, lastTokenOffset / 1e6))
        + "]";
  }

  /**
   * Walks the chunks in arrival order without allocating per chunk.
   *
   * <pre>{@code
   * ChunkTimeline.Cursor c = timeline.cursor();
   * while (c.next()) { use(c.offsetNanos(), c.kind(), c.tokens()); }
   * }</pre>
   */
  public static final class Cursor {
    private final byte[] data;
    private final int size;
    private int index = -1;
    private int pos;
    private long offset;
    private ChunkKind kind;
    private int tokens;

    private Cursor(byte[] data, int size) {
      this.data = data;
      this.size = size;
    }

    /** Advances to the next chunk; false when there is none. */
    public boolean next() {
      if (index + 1 >= size) {
        return false;
      }
      index++;
      // Locals rather than fields in the loops: this runs once per chunk of every record of a run.
      byte[] d = data;
      int p = pos;
      int header = d[p++] & 0xFF;
      kind = ChunkKind.ofOrdinal(header & KIND_MASK);
      // The gap's varint, unrolled for up to four bytes (gaps below 268 ms), the common case.
      long gap;
      int b = d[p++];
      if (b >= 0) {
        gap = b;
      } else {
        int v = b & 0x7F;
        b = d[p++];
        if (b >= 0) {
          gap = v | b << 7;
        } else {
          v |= (b & 0x7F) << 7;
          b = d[p++];
          if (b >= 0) {
            gap = v | b << 14;
          } else {
            v |= (b & 0x7F) << 14;
            b = d[p++];
            if (b >= 0) {
              gap = v | b << 21;
            } else {
              gap = v | (long) (b & 0x7F) << 21;
              int shift = 28;
              do {
                b = d[p++];
                gap |= (long) (b & 0x7F) << shift;
                shift += 7;
              } while (b < 0);
            }
          }
        }
      }
      offset += gap;
      int code = header >>> KIND_BITS;
      if (code == TOKENS_ESCAPE) {
        pos = p;
        code = (int) readVarLong();
      } else {
        pos = p;
      }
      tokens = code - 1;
      return true;
    }

    /** Zero-based index of the current chunk. */
    public int index() {
      return index;
    }

    /** Nanoseconds from send to the current chunk's arrival. */
    public long offsetNanos() {
      return offset;
    }

    /** Kind of the current chunk. */
    public ChunkKind kind() {
      return kind;
    }

    /** Tokens the current chunk carried, or {@link #UNKNOWN_TOKENS}. */
    public int tokens() {
      return tokens;
    }

    private long readVarLong() {
      long v = 0;
      int shift = 0;
      byte b;
      do {
        b = data[pos++];
        v |= (long) (b & 0x7F) << shift;
        shift += 7;
      } while (b < 0);
      return v;
    }
  }

  /**
   * Walks the gaps between consecutive token-bearing chunks without allocating per gap: the one place
   * ITL, per-token ITL and every gap histogram read them from.
   *
   * <pre>{@code
   * ChunkTimeline.TokenGaps g = timeline.gaps();
   * while (g.next()) { itl.record(g.gapNanos()); perToken(g.gapNanos(), g.tokens()); }
   * }</pre>
   */
  public static final class TokenGaps {
    private final Cursor cursor;
    private long previous = -1;
    private long gap;

    private TokenGaps(Cursor cursor) {
      this.cursor = cursor;
    }

    /** Advances to the next gap; false when there is none. */
    public boolean next() {
      Cursor c = cursor;
      while (c.next()) {
        if (c.kind().isTokenBearing()) {
          long t = c.offsetNanos();
          long p = previous;
          previous = t;
          if (p >= 0) {
            gap = t - p;
            return true;
          }
        }
      }
      return false;
    }

    /** Nanoseconds from the previous token-bearing chunk to the current one. */
    public long gapNanos() {
      return gap;
    }

    /** Nanoseconds from send to the token-bearing chunk that ends the current gap. */
    public long endOffsetNanos() {
      return cursor.offsetNanos();
    }

    /** Tokens the chunk ending the current gap carried, or {@link #UNKNOWN_TOKENS}. */
    public int tokens() {
      return cursor.tokens();
    }
  }

  /** Appends chunks in arrival order; not thread-safe. */
  public static final class Builder {
    private byte[] buf = new byte[64];
    private int len;
    private int size;
    private int tokenChunks;
    private long firstToken = -1;
    private long lastToken = -1;
    private long last = -1;

    private Builder() {}

    /**
     * Appends a chunk.
     *
     * @param offsetNanos nanoseconds since the request was sent; never less than the previous chunk's
     * @param kind what the chunk carried
     * @param tokens tokens it carried, or {@link #UNKNOWN_TOKENS}
     * @return this builder
     */
    public Builder add(long offsetNanos, ChunkKind kind, int tokens) {
      if (offsetNanos < 0 || offsetNanos < last) {
        throw new IllegalArgumentException("chunk offsets must be >= 0 and non-decreasing: " + offsetNanos
            + " after " + last);
      }
      if (tokens < UNKNOWN_TOKENS) {
        throw new IllegalArgumentException("tokens must be >= 0 or UNKNOWN_TOKENS, was " + tokens);
      }
      if (len + 21 > buf.length) {
        buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + 21));
      }
      int code = tokens + 1 < TOKENS_ESCAPE ? tokens + 1 : TOKENS_ESCAPE;
      buf[len++] = (byte) (kind.ordinal() | code << KIND_BITS);
      writeVarLong(offsetNanos - Math.max(last, 0));
      if (code == TOKENS_ESCAPE) {
        writeVarLong(tokens + 1L);
      }
      last = offsetNanos;
      size++;
      if (kind.isTokenBearing()) {
        tokenChunks++;
        if (firstToken < 0) {
          firstToken = offsetNanos;
        }
        lastToken = offsetNanos;
      }
      return this;
    }

    /** Number of chunks appended so far. */
    public int size() {
      return size;
    }

    /** An immutable timeline of the chunks appended so far; the builder stays usable. */
    public ChunkTimeline build() {
      if (size == 0) {
        return EMPTY;
      }
      return new ChunkTimeline(Arrays.copyOf(buf, len), size, tokenChunks, firstToken, lastToken, last);
    }

    private void writeVarLong(long v) {
      while ((v & ~0x7FL) != 0) {
        buf[len++] = (byte) ((v & 0x7F) | 0x80);
        v >>>= 7;
      }
      buf[len++] = (byte) v;
    }
  }
}
