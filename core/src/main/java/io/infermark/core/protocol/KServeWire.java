package io.infermark.core.protocol;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * The protobuf wire format of the few KServe v2 / Triton messages {@link TritonGrpcTarget} sends and
 * reads, by hand: a {@code ModelInferRequest} out, {@code ModelStreamInferResponse}s in. The field
 * numbers are those of {@code testkit/src/main/proto/kserve_v2_inference.proto} (KServe's
 * {@code grpc_predict_v2.proto} with Triton's streaming extension), against whose generated classes
 * the tests check this codec.
 *
 * <p>Written by hand rather than generated so that {@code core} carries no protobuf runtime (a
 * classpath shared with a host's own protobuf 3 or 4 stays the host's), and so the response path reads
 * only the text output in place, without building a message tree per streamed token.
 */
final class KServeWire {

  private KServeWire() {}

  static final int VARINT = 0;
  static final int FIXED64 = 1;
  static final int LEN = 2;
  static final int FIXED32 = 5;

  /** A message that is not valid protobuf, or not the shape the field numbers promise. */
  static final class MalformedMessage extends Exception {
    private static final long serialVersionUID = 1L;

    MalformedMessage(String message) {
      super(message, null, false, false);
    }
  }

  // ---- writing ----

  /** Builds one message; nested messages are built first and written as length-delimited fields. */
  static final class Writer {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream(128);

    Writer tag(int field, int wireType) {
      return varint(((long) field << 3) | wireType);
    }

    Writer varint(long v) {
      while ((v & ~0x7FL) != 0) {
        out.write((int) ((v & 0x7F) | 0x80));
        v >>>= 7;
      }
      out.write((int) v);
      return this;
    }

    Writer string(int field, String s) {
      return bytes(field, s.getBytes(StandardCharsets.UTF_8));
    }

    Writer bytes(int field, byte[] b) {
      tag(field, LEN).varint(b.length);
      out.write(b, 0, b.length);
      return this;
    }

    Writer message(int field, Writer nested) {
      return bytes(field, nested.toByteArray());
    }

    Writer int64(int field, long v) {
      return tag(field, VARINT).varint(v);
    }

    Writer bool(int field, boolean v) {
      return tag(field, VARINT).varint(v ? 1 : 0);
    }

    Writer double64(int field, double v) {
      tag(field, FIXED64);
      long bits = Double.doubleToLongBits(v);
      for (int i = 0; i < 8; i++) {
        out.write((int) (bits >>> (8 * i)));
      }
      return this;
    }

    /** A packed repeated varint field (int64, int32, bool) of the given values. */
    Writer packedVarints(int field, long... values) {
      Writer packed = new Writer();
      for (long v : values) {
        packed.varint(v);
      }
      return bytes(field, packed.toByteArray());
    }

    /** A packed repeated float field. */
    Writer packedFloats(int field, float... values) {
      tag(field, LEN).varint(4L * values.length);
      for (float f : values) {
        int bits = Float.floatToIntBits(f);
        for (int i = 0; i < 4; i++) {
          out.write(bits >>> (8 * i));
        }
      }
      return this;
    }

    byte[] toByteArray() {
      return out.toByteArray();
    }

    int size() {
      return out.size();
    }
  }

  /** {@code message} as one gRPC length-prefixed message: not compressed, 4-byte big-endian length. */
  static byte[] grpcFrame(byte[] message) {
    byte[] framed = new byte[5 + message.length];
    int n = message.length;
    framed[1] = (byte) (n >>> 24);
    framed[2] = (byte) (n >>> 16);
    framed[3] = (byte) (n >>> 8);
    framed[4] = (byte) n;
    System.arraycopy(message, 0, framed, 5, n);
    return framed;
  }

  // ---- reading ----

  /** Reads fields of one message in place: {@code pos} moves from the message's start to {@code limit}. */
  static final class Reader {
    byte[] buf;
    int pos;
    int limit;
    /** The span of the last length-delimited value read. */
    int spanStart;
    int spanEnd;

    Reader reset(byte[] buf, int start, int end) {
      this.buf = buf;
      this.pos = start;
      this.limit = end;
      return this;
    }

    boolean more() {
      return pos < limit;
    }

    long varint() throws MalformedMessage {
      long v = 0;
      for (int shift = 0; shift < 64; shift += 7) {
        if (pos >= limit) {
          throw new MalformedMessage("truncated varint");
        }
        byte b = buf[pos++];
        v |= (long) (b & 0x7F) << shift;
        if (b >= 0) {
          return v;
        }
      }
      throw new MalformedMessage("varint longer than 10 bytes");
    }

    /** The next tag; its field number is {@code tag >>> 3}, its wire type {@code tag & 7}. */
    int tag() throws MalformedMessage {
      long t = varint();
      if (t >>> 3 == 0 || t > 0xFFFFFFFFL) {
        throw new MalformedMessage("invalid field tag " + t);
      }
      return (int) t;
    }

    /** Reads a length-delimited value into {@link #spanStart}..{@link #spanEnd}. */
    void span() throws MalformedMessage {
      long n = varint();
      if (n < 0 || n > limit - pos) {
        throw new MalformedMessage("length " + n + " runs past the end of its message");
      }
      spanStart = pos;
      spanEnd = pos + (int) n;
      pos = spanEnd;
    }

    void skip(int wireType) throws MalformedMessage {
      switch (wireType) {
        case VARINT -> varint();
        case FIXED64 -> advance(8);
        case LEN -> span();
        case FIXED32 -> advance(4);
        default -> throw new MalformedMessage("unsupported wire type " + wireType);
      }
    }

    private void advance(int n) throws MalformedMessage {
      if (limit - pos < n) {
        throw new MalformedMessage("truncated fixed-width field");
      }
      pos += n;
    }

    boolean spanEquals(byte[] ascii) {
      int n = spanEnd - spanStart;
      if (n != ascii.length) {
        return false;
      }
      for (int i = 0; i < n; i++) {
        if (buf[spanStart + i] != ascii[i]) {
          return false;
        }
      }
      return true;
    }

    String spanString() {
      return new String(buf, spanStart, spanEnd - spanStart, StandardCharsets.UTF_8);
    }
  }
}
