package io.infermark.testfixtures;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ServerSocketFactory;

/**
 * A raw-socket HTTP server on 127.0.0.1 for misbehaving-server tests: each accepted connection runs
 * a {@link Script} on its own daemon thread, which reads and writes whatever bytes it likes.
 */
public final class RawServer implements AutoCloseable {

  /** What the server does with one connection; exceptions end the connection and are kept. */
  @FunctionalInterface
  public interface Script {
    /**
     * Serves one connection.
     *
     * @param socket the accepted socket, closed after the script returns
     * @param index the connection's number, from 0 in accept order
     */
    void serve(Socket socket, int index) throws Exception;
  }

  /** A request as read off the wire. */
  public record Request(String requestLine, Map<String, String> headers, byte[] body, long lastByteNanos) {
    /** A header by lower-case name. */
    public String header(String lowerCaseName) {
      return headers.get(lowerCaseName);
    }
  }

  private final ServerSocket server;
  private final Script script;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private final Map<Integer, CompletableFuture<Throwable>> ended = new ConcurrentHashMap<>();
  private final AtomicInteger accepted = new AtomicInteger();
  private volatile boolean closed;

  /** A plain server running {@code script} on every connection. */
  public RawServer(Script script) throws IOException {
    this(ServerSocketFactory.getDefault(), script);
  }

  /** A server whose listening socket comes from {@code factory} (e.g. TLS). */
  public RawServer(ServerSocketFactory factory, Script script) throws IOException {
    this.server = factory.createServerSocket();
    this.server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    this.script = script;
    Thread accept = new Thread(this::acceptLoop, "raw-server-accept-" + server.getLocalPort());
    accept.setDaemon(true);
    accept.start();
  }

  private void acceptLoop() {
    int index = 0;
    while (!closed) {
      Socket s;
      try {
        s = server.accept();
      } catch (IOException e) {
        return;
      }
      sockets.add(s);
      int i = index++;
      accepted.incrementAndGet();
      CompletableFuture<Throwable> done = ended(i);
      Thread t = new Thread(() -> {
        Throwable outcome = null;
        try (s) {
          script.serve(s, i);
        } catch (Throwable e) {
          outcome = e;
        }
        done.complete(outcome);
      }, "raw-server-" + server.getLocalPort() + "-" + i);
      t.setDaemon(true);
      t.start();
    }
  }

  /** The port it listens on. */
  public int port() {
    return server.getLocalPort();
  }

  /** {@code scheme://127.0.0.1:port/path}. */
  public URI url(String scheme, String path) {
    return URI.create(scheme + "://127.0.0.1:" + port() + path);
  }

  /** {@code http://127.0.0.1:port/path}. */
  public URI url(String path) {
    return url("http", path);
  }

  /** Connections accepted so far. */
  public int connections() {
    return accepted.get();
  }

  /**
   * Completes when connection {@code index} has been served: with the exception that ended its
   * script, or null when the script returned.
   */
  public CompletableFuture<Throwable> ended(int index) {
    return ended.computeIfAbsent(index, i -> new CompletableFuture<>());
  }

  @Override
  public void close() throws IOException {
    closed = true;
    server.close();
    for (Socket s : sockets) {
      s.close();
    }
  }

  // ---- helpers for scripts ----

  /**
   * Reads one request (head and a {@code Content-Length} body) and stamps when its last byte was
   * read; null when the client closed the connection before sending a byte.
   */
  public static Request readRequest(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int matched = 0;
    while (matched < 4) {
      int b = in.read();
      if (b < 0) {
        if (head.size() == 0) {
          return null;
        }
        throw new EOFException("connection closed inside a request head");
      }
      head.write(b);
      matched = (b == (matched % 2 == 0 ? '\r' : '\n')) ? matched + 1 : (b == '\r' ? 1 : 0);
    }
    String[] lines = head.toString(StandardCharsets.ISO_8859_1).split("\r\n");
    Map<String, String> headers = new LinkedHashMap<>();
    for (int i = 1; i < lines.length; i++) {
      int colon = lines[i].indexOf(':');
      if (colon > 0) {
        headers.put(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT), lines[i].substring(colon + 1).trim());
      }
    }
    int length = Integer.parseInt(headers.getOrDefault("content-length", "0"));
    byte[] body = in.readNBytes(length);
    long last = System.nanoTime();
    if (body.length < length) {
      throw new EOFException("connection closed inside a request body");
    }
    return new Request(lines[0], headers, body, last);
  }

  /** Writes {@code text} as ISO-8859-1 and flushes. */
  public static void write(OutputStream out, String text) throws IOException {
    out.write(text.getBytes(StandardCharsets.ISO_8859_1));
    out.flush();
  }

  /** Writes one chunk of a chunked body and flushes. */
  public static void writeChunk(OutputStream out, String data) throws IOException {
    byte[] bytes = data.getBytes(StandardCharsets.UTF_8);
    write(out, Integer.toHexString(bytes.length) + "\r\n");
    out.write(bytes);
    write(out, "\r\n");
  }

  /** Blocks until the peer closes the connection (or it fails); returns how many bytes came meanwhile. */
  public static long readUntilClosed(InputStream in) {
    long n = 0;
    byte[] buf = new byte[8192];
    try {
      int r;
      while ((r = in.read(buf)) >= 0) {
        n += r;
      }
    } catch (IOException e) {
      // reset by the peer: closed as well
    }
    return n;
  }

  /** The head of a chunked {@code text/event-stream} response. */
  public static final String SSE_HEAD = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
      + "Transfer-Encoding: chunked\r\n\r\n";
}
