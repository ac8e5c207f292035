package io.infermark.testkit.simulator;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A small non-blocking HTTP/1.1 server: one selector thread accepts connections, reads requests
 * (request line, headers, a {@code Content-Length} body; keep-alive and pipelining), hands each
 * complete request to a {@link Handler} on the given executor, and writes whatever response bytes
 * a socket could not take at once when it drains. It holds no thread per connection or stream:
 * response bytes are written with non-blocking writes by whichever thread produced them.
 *
 * <p>What it does not support is answered with a clear error and the connection closed: a chunked
 * or otherwise encoded request body (411), a request head over 64 KiB (431), a body over 64 MiB
 * (413), an HTTP version other than 1.0 or 1.1 (505), and a malformed request line, header or
 * target (400). {@code Expect: 100-continue} is honoured. Nagle's algorithm is off on every
 * connection, so each write leaves at once.
 */
final class NioHttpServer implements AutoCloseable {

  /** Serves one request; runs on the executor. Throwing closes the connection. */
  interface Handler {
    void handle(Exchange exchange) throws IOException;
  }

  private static final Logger log = LoggerFactory.getLogger(NioHttpServer.class);

  static final int MAX_HEAD_BYTES = 64 * 1024;
  private static final java.util.regex.Pattern LINE_BREAK = java.util.regex.Pattern.compile("\r?\n");
  static final int MAX_BODY_BYTES = 64 * 1024 * 1024;

  private final ServerSocketChannel listener;
  private final InetSocketAddress address;
  private final Selector selector;
  private final Handler handler;
  private final ExecutorService executor;
  private final Thread thread;
  private final Set<Connection> connections = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;

  private NioHttpServer(ServerSocketChannel listener, Selector selector, Handler handler, ExecutorService executor)
      throws IOException {
    this.listener = listener;
    this.address = (InetSocketAddress) listener.getLocalAddress();
    this.selector = selector;
    this.handler = handler;
    this.executor = executor;
    this.thread = new Thread(this::loop, "infermark-sim-http");
    thread.setDaemon(true);
  }

  /**
   * Binds {@code address} and starts the selector thread.
   *
   * @throws IOException if the address cannot be bound
   */
  static NioHttpServer start(InetSocketAddress address, int backlog, Handler handler, ExecutorService executor)
      throws IOException {
    ServerSocketChannel listener = ServerSocketChannel.open();
    Selector selector = null;
    try {
      listener.bind(address, backlog);
      listener.configureBlocking(false);
      selector = Selector.open();
      listener.register(selector, SelectionKey.OP_ACCEPT);
    } catch (IOException | RuntimeException e) {
      listener.close();
      if (selector != null) {
        selector.close();
      }
      throw e;
    }
    try {
      NioHttpServer server = new NioHttpServer(listener, selector, handler, executor);
      server.thread.start();
      return server;
    } catch (IOException e) {
      listener.close();
      selector.close();
      throw e;
    }
  }

  /** The bound address (with the real port when an ephemeral one was asked for). */
  InetSocketAddress address() {
    return address;
  }

  /** Stops accepting and closes every connection (ongoing exchanges learn they lost it); idempotent. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      listener.close();
    } catch (IOException e) {
      log.debug("closing the listening socket failed", e);
    }
    for (Connection c : connections) {
      c.close();
    }
    selector.wakeup();
    try {
      thread.join(2_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try {
      selector.close();
    } catch (IOException e) {
      log.debug("closing the selector failed", e);
    }
  }

  private void loop() {
    try {
      while (!closed) {
        selector.select(this::ready);
      }
    } catch (ClosedSelectorException e) {
      // closing
    } catch (IOException | RuntimeException e) {
      if (!closed) {
        log.error("simulator HTTP selector failed; no more requests will be served", e);
      }
    }
  }

  private void ready(SelectionKey key) {
    if (!key.isValid()) {
      return;
    }
    if (key.isAcceptable()) {
      accept();
      return;
    }
    Connection c = (Connection) key.attachment();
    if (key.isWritable()) {
      c.writable();
    }
    if (key.isValid() && key.isReadable()) {
      c.readable();
    }
  }

  private void accept() {
    SocketChannel channel;
    try {
      while ((channel = listener.accept()) != null) {
        try {
          channel.configureBlocking(false);
          channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
          Connection c = new Connection(channel);
          c.key = channel.register(selector, SelectionKey.OP_READ, c);
          connections.add(c);
          if (closed) {
            c.close();
          }
        } catch (IOException e) {
          log.debug("could not set up an accepted connection", e);
          channel.close();
        }
      }
    } catch (IOException e) {
      if (!closed) {
        log.debug("accept failed", e);
      }
    }
  }

  static String reason(int status) {
    return switch (status) {
      case 100 -> "Continue";
      case 200 -> "OK";
      case 400 -> "Bad Request";
      case 404 -> "Not Found";
      case 405 -> "Method Not Allowed";
      case 411 -> "Length Required";
      case 413 -> "Content Too Large";
      case 429 -> "Too Many Requests";
      case 431 -> "Request Header Fields Too Large";
      case 500 -> "Internal Server Error";
      case 503 -> "Service Unavailable";
      case 505 -> "HTTP Version Not Supported";
      default -> "Status " + status;
    };
  }

  /** A request the server refuses before any handler sees it. */
  private static final class Refused extends Exception {
    private static final long serialVersionUID = 1L;
    final int status;

    Refused(int status, String message) {
      super(message, null, false, false);
      this.status = status;
    }
  }

  /**
   * One client connection: its unparsed input, the exchange being served (one at a time, in
   * order), and the response bytes still waiting for the socket. Guarded by its own monitor.
   */
  final class Connection implements Exchange.Wire {

    private final SocketChannel channel;
    SelectionKey key;
    private ByteBuffer in = ByteBuffer.allocate(4096); // filled from position 0 up to position()
    private ByteBuffer out; // bytes the socket did not take yet (flip mode), or null
    private Exchange active;
    private boolean continueSent;
    private boolean closeWhenWritten;
    private boolean refused; // a refusal was sent: discard input until the client closes
    private boolean closed;
    /** When the latest read returned bytes: a request completed by that read arrived then. */
    private long readAt;

    Connection(SocketChannel channel) {
      this.channel = channel;
    }

    void readable() {
      Exchange next = null;
      boolean eof;
      try {
        synchronized (this) {
          if (closed) {
            return;
          }
          if (refused) {
            in.clear();
            eof = channel.read(in) < 0;
            in.clear();
          } else {
            eof = !fill();
            if (!eof) {
              next = nextRequest();
            }
          }
        }
      } catch (IOException e) {
        close();
        return;
      }
      // The client closing its side is the normal end of a connection (a client that opens one per
      // request closes every one): no exception, whose stack trace would cost more than the close.
      if (eof) {
        close();
        return;
      }
      dispatch(next);
    }

    /** Reads what the socket has into the input buffer, growing it when full; false if the client closed. */
    private boolean fill() throws IOException {
      if (!in.hasRemaining()) {
        if (in.capacity() >= MAX_HEAD_BYTES + MAX_BODY_BYTES) {
          throw new IOException("request larger than the server accepts");
        }
        in = ByteBuffer.allocate(Math.min(in.capacity() * 2, MAX_HEAD_BYTES + MAX_BODY_BYTES)).put(in.flip());
      }
      int n = channel.read(in);
      if (n > 0) {
        readAt = System.nanoTime();
      }
      return n >= 0;
    }

    /** Parses the next complete request if none is being served; null when there is none yet. */
    private Exchange nextRequest() throws IOException {
      if (active != null || closed || closeWhenWritten || in.position() == 0) {
        return null;
      }
      byte[] buf = in.array();
      int length = in.position();
      int headEnd = headEnd(buf, Math.min(length, MAX_HEAD_BYTES + 4));
      if (headEnd < 0 || headEnd > MAX_HEAD_BYTES) {
        if (length > MAX_HEAD_BYTES) {
          refuse(new Refused(431, "The request head is longer than " + MAX_HEAD_BYTES + " bytes"));
        }
        return null;
      }
      try {
        String head = new String(buf, 0, headEnd, StandardCharsets.ISO_8859_1);
        String[] lines = LINE_BREAK.split(head);
        String[] requestLine = lines[0].split(" ", -1);
        if (requestLine.length != 3 || requestLine[0].isEmpty()) {
          throw new Refused(400, "Malformed request line '" + lines[0] + "'; expected METHOD SP target SP HTTP/1.1");
        }
        String version = requestLine[2];
        if (!version.equals("HTTP/1.1") && !version.equals("HTTP/1.0")) {
          throw new Refused(505, "HTTP version '" + version + "' is not supported; use HTTP/1.1");
        }
        List<String[]> headers = new ArrayList<>(lines.length);
        long contentLength = 0;
        boolean keepAlive = version.equals("HTTP/1.1");
        boolean expectContinue = false;
        for (int i = 1; i < lines.length; i++) {
          String line = lines[i];
          if (line.isEmpty()) {
            continue;
          }
          int colon = line.indexOf(':');
          if (colon <= 0 || line.charAt(0) == ' ' || line.charAt(0) == '\t') {
            throw new Refused(400, "Malformed header line '" + line + "'; expected 'Name: value'");
          }
          String name = line.substring(0, colon).trim();
          String value = line.substring(colon + 1).trim();
          headers.add(new String[] {name, value});
          switch (name.toLowerCase(Locale.ROOT)) {
            case "content-length" -> contentLength = contentLength(value);
            case "transfer-encoding" -> throw new Refused(411, "Transfer-Encoding '" + value
                + "' request bodies are not supported; send the body with a Content-Length");
            case "connection" -> {
              String v = value.toLowerCase(Locale.ROOT);
              keepAlive = v.contains("close") ? false : v.contains("keep-alive") || keepAlive;
            }
            case "expect" -> expectContinue = value.equalsIgnoreCase("100-continue");
            default -> { }
          }
        }
        URI target = target(requestLine[1]);
        String path = target.getPath();
        if (length - headEnd < contentLength) {
          if (expectContinue && !continueSent) {
            continueSent = true;
            write(ByteBuffer.wrap("HTTP/1.1 100 Continue\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1)));
          }
          return null;
        }
        byte[] body = Arrays.copyOfRange(buf, headEnd, headEnd + (int) contentLength);
        consume(headEnd + (int) contentLength);
        continueSent = false;
        active = new Exchange(this, requestLine[0], path, target.getRawQuery(), headers, body, keepAlive, readAt);
        return active;
      } catch (Refused r) {
        refuse(r);
        return null;
      }
    }

    private long contentLength(String value) throws Refused {
      long n;
      try {
        n = Long.parseLong(value);
      } catch (NumberFormatException e) {
        throw new Refused(400, "Content-Length '" + value + "' is not a number");
      }
      if (n < 0) {
        throw new Refused(400, "Content-Length " + n + " is negative");
      }
      if (n > MAX_BODY_BYTES) {
        throw new Refused(413, "The request body (" + n + " bytes) is larger than " + MAX_BODY_BYTES + " bytes");
      }
      return n;
    }

    private URI target(String target) throws Refused {
      try {
        URI uri = new URI(target);
        String p = uri.getPath();
        if (p == null || p.isEmpty()) {
          throw new Refused(400, "Request target '" + target + "' has no path");
        }
        return uri;
      } catch (URISyntaxException e) {
        throw new Refused(400, "Request target '" + target + "' is not a valid URI: " + e.getReason());
      }
    }

    /**
     * Answers a refused request in OpenAI's error shape and ends the connection once it is written:
     * output shut down, input discarded until the client closes (closing with unread input would
     * reset the connection, and the client could lose the answer).
     */
    private void refuse(Refused r) throws IOException {
      String body = "{\"error\":{\"message\":" + jsonString(r.getMessage()) + ",\"type\":\"BadRequestError\","
          + "\"param\":null,\"code\":" + r.status + "}}";
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      String head = "HTTP/1.1 " + r.status + ' ' + reason(r.status) + "\r\nContent-Type: application/json\r\n"
          + "Content-Length: " + bytes.length + "\r\nConnection: close\r\n\r\n";
      byte[] headBytes = head.getBytes(StandardCharsets.ISO_8859_1);
      ByteBuffer response = ByteBuffer.allocate(headBytes.length + bytes.length).put(headBytes).put(bytes).flip();
      in.clear();
      closeWhenWritten = true;
      refused = true;
      write(response);
      if (out == null) {
        channel.shutdownOutput();
      }
    }

    private void consume(int n) {
      in.flip().position(n);
      in.compact();
    }

    private void dispatch(Exchange exchange) {
      if (exchange == null) {
        return;
      }
      try {
        executor.execute(() -> serve(exchange));
      } catch (RejectedExecutionException e) {
        close(); // the server is closing
      }
    }

    private void serve(Exchange exchange) {
      try {
        handler.handle(exchange);
      } catch (IOException | RuntimeException | Error e) {
        log.debug("{} failed; closing its connection: {}", exchange, e.toString());
        close();
      }
    }

    /**
     * Writes {@code bytes} without blocking: what the socket does not take now is queued and
     * written by the selector thread when the socket drains.
     *
     * @throws IOException if the connection is closed or the write fails
     */
    @Override
    public void write(ByteBuffer bytes) throws IOException {
      IOException failed = null;
      synchronized (this) {
        if (closed) {
          throw new IOException("connection closed");
        }
        if (out == null) {
          try {
            channel.write(bytes);
          } catch (IOException e) {
            failed = e;
          }
          if (failed == null && bytes.hasRemaining()) {
            out = ByteBuffer.allocate(Math.max(bytes.remaining() * 2, 8192)).put(bytes).flip();
            key.interestOps(SelectionKey.OP_READ | SelectionKey.OP_WRITE);
            selector.wakeup();
          }
        } else {
          if (out.capacity() - out.limit() < bytes.remaining()) {
            out = ByteBuffer.allocate(Math.max(out.capacity() * 2, out.remaining() + bytes.remaining()))
                .put(out).flip();
          }
          int position = out.position();
          out.position(out.limit()).limit(out.limit() + bytes.remaining());
          out.put(bytes).position(position);
        }
      }
      if (failed != null) {
        close();
        throw failed;
      }
    }

    void writable() {
      Exchange next = null;
      try {
        synchronized (this) {
          if (closed || out == null) {
            return;
          }
          channel.write(out);
          if (out.hasRemaining()) {
            return;
          }
          out = null;
          key.interestOps(SelectionKey.OP_READ);
          if (refused) {
            channel.shutdownOutput();
            return;
          }
          if (closeWhenWritten) {
            closeNow();
            return;
          }
          next = nextRequest();
        }
      } catch (IOException e) {
        close();
        return;
      }
      dispatch(next);
    }

    /** The exchange's response has ended: close, or serve the next request already received. */
    @Override
    public void exchangeEnded(Exchange exchange, boolean keepAlive) {
      Exchange next;
      try {
        synchronized (this) {
          if (active != exchange) {
            return;
          }
          active = null;
          if (!keepAlive) {
            closeWhenWritten = true;
            if (out == null) {
              closeNow();
            }
            return;
          }
          next = nextRequest();
        }
      } catch (IOException e) {
        close();
        return;
      }
      dispatch(next);
    }

    /** Closes the connection now, dropping unwritten bytes; the active exchange learns it lost it. */
    @Override
    public void close() {
      Exchange lost;
      synchronized (this) {
        if (closed) {
          return;
        }
        lost = active;
        active = null;
        closeNow();
      }
      if (lost != null) {
        lost.connectionClosed();
      }
    }

    private void closeNow() {
      closed = true;
      connections.remove(this);
      if (key != null) {
        key.cancel();
      }
      try {
        channel.close();
      } catch (IOException e) {
        log.debug("closing a connection failed", e);
      }
    }
  }

  private static int headEnd(byte[] b, int length) {
    for (int i = 0; i < length; i++) {
      if (b[i] == '\n') {
        if (i + 1 < length && b[i + 1] == '\n') {
          return i + 2;
        }
        if (i + 2 < length && b[i + 1] == '\r' && b[i + 2] == '\n') {
          return i + 3;
        }
      }
    }
    return -1;
  }

  private static String jsonString(String s) {
    StringBuilder b = new StringBuilder(s.length() + 2).append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        default -> {
          if (c < 0x20) {
            b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    return b.append('"').toString();
  }
}
