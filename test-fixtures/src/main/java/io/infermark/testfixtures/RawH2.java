package io.infermark.testfixtures;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * HTTP/2 frames written and read by hand on a {@link RawServer} socket, for servers that break the
 * protocol on purpose. Headers are HPACK-encoded as literals without indexing, so no table state is
 * needed; a header block over 16,384 bytes is split into HEADERS and CONTINUATION frames.
 */
public final class RawH2 {

  /** Frame type DATA (RFC 9113 §6.1). */
  public static final int DATA = 0;
  /** Frame type HEADERS. */
  public static final int HEADERS = 1;
  /** Frame type RST_STREAM. */
  public static final int RST_STREAM = 3;
  /** Frame type SETTINGS. */
  public static final int SETTINGS = 4;
  /** Frame type GOAWAY. */
  public static final int GOAWAY = 7;
  /** Frame type WINDOW_UPDATE. */
  public static final int WINDOW_UPDATE = 8;
  /** Frame type CONTINUATION. */
  public static final int CONTINUATION = 9;
  /** Flag END_STREAM (on HEADERS and DATA). */
  public static final int END_STREAM = 1;
  /** Flag END_HEADERS (on HEADERS and CONTINUATION). */
  public static final int END_HEADERS = 4;
  /** Flag ACK (on SETTINGS and PING). */
  public static final int ACK = 1;
  /** Setting id SETTINGS_MAX_CONCURRENT_STREAMS. */
  public static final int SETTINGS_MAX_CONCURRENT_STREAMS = 3;
  /** Setting id SETTINGS_INITIAL_WINDOW_SIZE. */
  public static final int SETTINGS_INITIAL_WINDOW_SIZE = 4;
  private static final int MAX_FRAME = 16_384;
  private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

  private RawH2() {}

  /**
   * One frame as read.
   *
   * @param type the frame type
   * @param flags the frame's flags
   * @param streamId the stream it belongs to (0: the connection)
   * @param payload its payload
   */
  public record Frame(int type, int flags, int streamId, byte[] payload) {}

  /**
   * Reads the client's preface and SETTINGS, then sends the server's SETTINGS ({@code settings} as
   * id/value pairs) and the ACK of the client's.
   */
  public static void handshake(InputStream in, OutputStream out, int... settings) throws IOException {
    byte[] preface = new DataInputStream(in).readNBytes(PREFACE.length);
    if (!Arrays.equals(preface, PREFACE)) {
      throw new IOException("not an HTTP/2 preface: " + new String(preface, StandardCharsets.ISO_8859_1));
    }
    Frame f;
    do {
      f = read(in);
    } while (f.type() != SETTINGS);
    byte[] payload = new byte[settings.length / 2 * 6];
    for (int i = 0; i < settings.length; i += 2) {
      int at = i / 2 * 6;
      payload[at] = (byte) (settings[i] >> 8);
      payload[at + 1] = (byte) settings[i];
      int v = settings[i + 1];
      payload[at + 2] = (byte) (v >>> 24);
      payload[at + 3] = (byte) (v >>> 16);
      payload[at + 4] = (byte) (v >>> 8);
      payload[at + 5] = (byte) v;
    }
    write(out, SETTINGS, 0, 0, payload);
    write(out, SETTINGS, ACK, 0, new byte[0]);
  }

  /** Reads one frame; throws at the end of the input. */
  public static Frame read(InputStream in) throws IOException {
    DataInputStream d = new DataInputStream(in);
    int length = (d.readUnsignedByte() << 16) | (d.readUnsignedByte() << 8) | d.readUnsignedByte();
    int type = d.readUnsignedByte();
    int flags = d.readUnsignedByte();
    int stream = d.readInt() & 0x7fffffff;
    byte[] payload = new byte[length];
    d.readFully(payload);
    return new Frame(type, flags, stream, payload);
  }

  /** Reads frames until a request has ended (END_STREAM on its HEADERS or DATA); returns its stream id. */
  public static int readRequest(InputStream in) throws IOException {
    while (true) {
      Frame f = read(in);
      if ((f.type() == HEADERS || f.type() == DATA) && (f.flags() & END_STREAM) != 0) {
        return f.streamId();
      }
    }
  }

  /** Reads frames until the request's HEADERS (the body may still be on its way); returns its stream id. */
  public static int readRequestHeaders(InputStream in) throws IOException {
    while (true) {
      Frame f = read(in);
      if (f.type() == HEADERS) {
        return f.streamId();
      }
    }
  }

  /** Writes one frame. */
  public static void write(OutputStream out, int type, int flags, int stream, byte[] payload) throws IOException {
    byte[] head = {(byte) (payload.length >>> 16), (byte) (payload.length >>> 8), (byte) payload.length, (byte) type,
        (byte) flags, (byte) (stream >>> 24), (byte) (stream >>> 16), (byte) (stream >>> 8), (byte) stream};
    out.write(head);
    out.write(payload);
    out.flush();
  }

  /** Writes a response's headers: {@code :status} then name/value pairs, in as many frames as they need. */
  public static void writeHeaders(OutputStream out, int stream, int status, boolean endStream, String... nameValues)
      throws IOException {
    ByteArrayOutputStream block = new ByteArrayOutputStream();
    literal(block, ":status", Integer.toString(status));
    for (int i = 0; i < nameValues.length; i += 2) {
      literal(block, nameValues[i], nameValues[i + 1]);
    }
    byte[] b = block.toByteArray();
    int at = 0;
    boolean first = true;
    do {
      int n = Math.min(MAX_FRAME, b.length - at);
      boolean last = at + n == b.length;
      int flags = (last ? END_HEADERS : 0) | (first && endStream ? END_STREAM : 0);
      write(out, first ? HEADERS : CONTINUATION, flags, stream, Arrays.copyOfRange(b, at, at + n));
      at += n;
      first = false;
    } while (at < b.length);
  }

  /** Writes a DATA frame. */
  public static void writeData(OutputStream out, int stream, String text, boolean endStream) throws IOException {
    write(out, DATA, endStream ? END_STREAM : 0, stream, text.getBytes(StandardCharsets.UTF_8));
  }

  /** Writes RST_STREAM with {@code code} (2 INTERNAL_ERROR, 7 REFUSED_STREAM, 8 CANCEL). */
  public static void writeRst(OutputStream out, int stream, int code) throws IOException {
    write(out, RST_STREAM, 0, stream, int32(code));
  }

  /** Writes GOAWAY naming {@code lastStream} as the last stream the server will process. */
  public static void writeGoAway(OutputStream out, int lastStream, int code) throws IOException {
    byte[] p = new byte[8];
    System.arraycopy(int32(lastStream), 0, p, 0, 4);
    System.arraycopy(int32(code), 0, p, 4, 4);
    write(out, GOAWAY, 0, 0, p);
  }

  private static byte[] int32(int v) {
    return new byte[] {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v};
  }

  /** HPACK "literal header field without indexing, new name" (RFC 7541 §6.2.2), no Huffman coding. */
  private static void literal(ByteArrayOutputStream out, String name, String value) {
    out.write(0);
    string(out, name.getBytes(StandardCharsets.US_ASCII));
    string(out, value.getBytes(StandardCharsets.UTF_8));
  }

  private static void string(ByteArrayOutputStream out, byte[] s) {
    integer(out, s.length, 7, 0);
    out.writeBytes(s);
  }

  /** An HPACK integer with an {@code n}-bit prefix (RFC 7541 §5.1). */
  private static void integer(ByteArrayOutputStream out, int value, int n, int mask) {
    int max = (1 << n) - 1;
    if (value < max) {
      out.write(mask | value);
      return;
    }
    out.write(mask | max);
    value -= max;
    while (value >= 128) {
      out.write((value & 0x7f) | 0x80);
      value >>>= 7;
    }
    out.write(value);
  }
}
