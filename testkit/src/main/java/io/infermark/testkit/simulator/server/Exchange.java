package io.infermark.testkit.simulator.server;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * One request received by the {@link NettyHttp1Server} (HTTP/1.1) or the {@link NettyH2Server} (h2c) and its response: the request's
 * method, path, headers and body, and the calls that write the response to the connection.
 *
 * <p>Writes never block: what the socket does not take at once is queued on the connection and
 * written by the server's selector thread when the socket drains. So the engine's thread can write
 * every stream's tokens each step, and a handler thread writes the rest. A response is written
 * with {@link #sendResponseHeaders}, then {@link #responseBody()} (or {@link #writeChunk}), and
 * ends with {@link #close()}, which makes the connection ready for its next request; or it is cut
 * off with {@link #abort()}, which closes the connection.
 */
public final class Exchange {

  /** Serves one request; runs on the server's executor. Throwing closes the connection (HTTP/2: resets the stream). */
  public interface Handler {
    void handle(Exchange exchange) throws IOException;
  }

  /** Where an exchange's response bytes go: an HTTP/1.1 connection, or one HTTP/2 stream. */
  public interface Wire {
    /** Writes HTTP/1.1 bytes (a head, a framed chunk, a fixed-length body) without blocking. */
    void write(ByteBuffer bytes) throws IOException;

    /** The exchange's response has ended. */
    void exchangeEnded(Exchange exchange, boolean keepAlive);

    /** Cuts the response off: HTTP/1.1 closes the connection, HTTP/2 resets the stream. */
    void close();
  }

  /** An HTTP/2 stream: the head and body go out as HEADERS and DATA frames rather than HTTP/1.1 bytes. */
  public interface H2Wire extends Wire {
    /** Writes the response HEADERS; {@code endStream} when there is no body. */
    void head(int status, List<String[]> headers, boolean endStream) throws IOException;

    /** Writes {@code content} (its remaining bytes, copied before this returns) as DATA. */
    void data(ByteBuffer content, boolean endStream) throws IOException;
  }

  /** Told when the connection closes before the response ended (client gone, or server closing). */
  public interface LostListener {
    void connectionLost();
  }

  private enum Mode { NOT_SENT, EMPTY, FIXED, CHUNKED, ENDED }

  private final Wire connection;
  private final H2Wire h2;
  private final String method;
  private final String path;
  private final String query; // raw, or null
  private final List<String[]> requestHeaders;
  private final byte[] requestBody;
  private final boolean keepAlive;
  private final List<String[]> responseHeaders = new ArrayList<>(4);
  private final Body body = new Body();
  private volatile Mode mode = Mode.NOT_SENT;
  private long remaining; // bytes still due in FIXED mode
  private volatile LostListener lost;
  private final long arrivalNanos;

  /**
   * An exchange whose request arrived at {@code arrivalNanos} ({@link System#nanoTime()}): when the
   * read that completed it returned, before it waited for a handler thread.
   */
  public Exchange(Wire connection, String method, String path, String query,
      List<String[]> requestHeaders, byte[] requestBody, boolean keepAlive, long arrivalNanos) {
    this.connection = connection;
    this.h2 = connection instanceof H2Wire w ? w : null;
    this.method = method;
    this.path = path;
    this.query = query;
    this.requestHeaders = requestHeaders;
    this.requestBody = requestBody;
    this.keepAlive = keepAlive;
    this.arrivalNanos = arrivalNanos;
  }

  /** When the request's last byte was read ({@link System#nanoTime()}). */
  public long arrivalNanos() {
    return arrivalNanos;
  }

  public String method() {
    return method;
  }

  /** The request target's path, percent-decoded, without its query. */
  public String path() {
    return path;
  }

  /**
   * The value of query parameter {@code name} (the first, percent-decoded), or null if the request
   * target has no such parameter.
   */
  public String queryParameter(String name) {
    if (query == null) {
      return null;
    }
    for (String pair : query.split("&")) {
      int eq = pair.indexOf('=');
      String key = java.net.URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
      if (key.equals(name)) {
        return eq < 0 ? "" : java.net.URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
      }
    }
    return null;
  }

  /** The first value of a request header (case-insensitive name), or null if the request has none. */
  public String requestHeader(String name) {
    for (String[] h : requestHeaders) {
      if (h[0].equalsIgnoreCase(name)) {
        return h[1];
      }
    }
    return null;
  }

  public byte[] requestBody() {
    return requestBody;
  }

  /** Sets a response header, replacing an earlier value; only before {@link #sendResponseHeaders}. */
  public void responseHeader(String name, String value) {
    responseHeaders.removeIf(h -> h[0].equalsIgnoreCase(name));
    responseHeaders.add(new String[] {name, value});
  }

  /** Registers the listener told if the connection is lost before the response ends. */
  public void onConnectionLost(LostListener listener) {
    this.lost = listener;
  }

  /**
   * Writes the status line and headers now. {@code length} is the body's length in bytes: -1 for
   * no body, 0 for a chunked body of unknown length, or the exact length of a fixed-length body
   * (as in the JDK's {@code HttpExchange}).
   */
  public void sendResponseHeaders(int status, long length) throws IOException {
    if (mode != Mode.NOT_SENT) {
      throw new IllegalStateException("response headers already sent");
    }
    if (h2 != null) {
      List<String[]> headers = new ArrayList<>(responseHeaders);
      if (length > 0) {
        headers.add(new String[] {"content-length", Long.toString(length)});
        mode = Mode.FIXED;
        remaining = length;
      } else {
        mode = length == 0 ? Mode.CHUNKED : Mode.EMPTY;
      }
      h2.head(status, headers, length < 0);
      return;
    }
    StringBuilder head = new StringBuilder(160).append("HTTP/1.1 ").append(status).append(' ')
        .append(NettyHttp1Server.reason(status)).append("\r\n");
    for (String[] h : responseHeaders) {
      head.append(h[0]).append(": ").append(h[1]).append("\r\n");
    }
    if (length > 0) {
      head.append("Content-Length: ").append(length).append("\r\n");
      mode = Mode.FIXED;
      remaining = length;
    } else if (length == 0) {
      head.append("Transfer-Encoding: chunked\r\n");
      mode = Mode.CHUNKED;
    } else {
      head.append("Content-Length: 0\r\n");
      mode = Mode.EMPTY;
    }
    if (!keepAlive) {
      head.append("Connection: close\r\n");
    }
    head.append("\r\n");
    connection.write(ByteBuffer.wrap(head.toString().getBytes(StandardCharsets.ISO_8859_1)));
  }

  /** The response body; each {@code flush()} writes what was written since as one chunk. */
  public OutputStream responseBody() {
    return body;
  }

  /**
   * Writes {@code content} as one chunk of a chunked body (nothing if it is empty), followed by
   * the body's end when {@code last}, in one socket write; after {@code last} the exchange has ended.
   */
  public void writeChunk(ChunkBuffer content, boolean last) throws IOException {
    if (mode != Mode.CHUNKED) {
      throw new IllegalStateException("not a chunked response: " + mode);
    }
    if (last) {
      mode = Mode.ENDED;
    }
    if (h2 != null) {
      h2.data(content.raw(), last);
    } else {
      connection.write(content.chunk(last));
    }
    if (last) {
      connection.exchangeEnded(this, keepAlive);
    }
  }

  /** Ends the response (the last chunk of a chunked body) and frees the connection; idempotent. */
  public void close() throws IOException {
    if (mode == Mode.ENDED) {
      return;
    }
    if (mode == Mode.NOT_SENT) {
      throw new IllegalStateException("close before sendResponseHeaders");
    }
    body.flush();
    if (h2 != null && mode != Mode.EMPTY) {
      mode = Mode.ENDED;
      h2.data(ByteBuffer.allocate(0), true); // END_STREAM (an EMPTY response ended with its HEADERS)
    } else if (mode == Mode.CHUNKED) {
      mode = Mode.ENDED;
      ChunkBuffer none = new ChunkBuffer(0);
      connection.write(none.chunk(true));
    }
    mode = Mode.ENDED;
    connection.exchangeEnded(this, keepAlive);
  }

  /** Drops the connection without ending the response: the client sees it close mid-response. */
  public void abort() {
    mode = Mode.ENDED;
    connection.close();
  }

  /** Called by the connection when it closed before this exchange ended. */
  public void connectionClosed() {
    LostListener l = lost;
    if (l != null && mode != Mode.ENDED) {
      l.connectionLost();
    }
  }

  @Override
  public String toString() {
    return "Exchange{" + method + ' ' + path + ' ' + mode + '}';
  }

  private final class Body extends OutputStream {

    private final ChunkBuffer pending = new ChunkBuffer(256);

    @Override
    public void write(int b) {
      pending.append(b);
    }

    @Override
    public void write(byte[] b, int off, int len) {
      pending.append(b, off, len);
    }

    @Override
    public void flush() throws IOException {
      if (pending.isEmpty()) {
        return;
      }
      if (h2 != null && (mode == Mode.CHUNKED || mode == Mode.FIXED)) {
        int size = pending.size();
        if (mode == Mode.FIXED && size > remaining) {
          pending.raw();
          throw new IOException("response body longer than its Content-Length " + remaining);
        }
        remaining -= mode == Mode.FIXED ? size : 0;
        h2.data(pending.raw(), false);
        return;
      }
      switch (mode) {
        case CHUNKED -> connection.write(pending.chunk(false));
        case FIXED -> {
          int size = pending.size();
          if (size > remaining) {
            pending.raw();
            throw new IOException("response body longer than its Content-Length " + remaining);
          }
          remaining -= size;
          connection.write(pending.raw());
        }
        default -> throw new IOException("no response body may be written now: " + mode);
      }
    }

    @Override
    public void close() throws IOException {
      Exchange.this.close();
    }
  }
}
