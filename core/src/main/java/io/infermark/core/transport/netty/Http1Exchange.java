package io.infermark.core.transport.netty;

import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.Phase;
import io.infermark.core.capture.TimeoutPhase;
import io.infermark.core.transport.Cancellation;
import io.infermark.core.transport.OutboundRequest;
import io.infermark.core.transport.ResponseHandler;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ConnectTimeoutException;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.PrematureChannelClosureException;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.ssl.SslHandshakeTimeoutException;
import io.netty.util.concurrent.Future;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * An exchange over HTTP/1.1: it opens (or takes from its {@link HostPool}) a {@link Connection} of its
 * own, writes the request as one message, and is handed the response that connection decodes. Its
 * lifecycle (send, timer, terminal event, cancellation, retry) is {@link Exchange}'s; here is what
 * HTTP/1.1 adds: connecting (DNS, TCP, TLS), the request's encoding, and how a lost or broken
 * connection is classified. A pooled connection that fails before any response byte is retried once
 * on a new connection.
 */
final class Http1Exchange extends Exchange {

  private final HostPool pool;

  // ---- confined to loop ----
  /** The send already reported by an HTTP/2 attempt that handed this request over, or {@code Long.MIN_VALUE}. */
  private long sentAt = Long.MIN_VALUE;
  private Connection conn;
  private boolean connecting;
  private boolean handshaking;
  private long connectStart;

  Http1Exchange(NettyTransport transport, HostPool pool, EventLoop loop, OutboundRequest request,
      ResponseHandler handler, Cancellation cancellation) {
    super(transport, pool.authority(), loop, request, handler, cancellation);
    this.pool = pool;
  }

  // ---- starting ----

  /** Sends on a connection taken from the pool. */
  void runPooled(Connection c) {
    try {
      sendPooled(c);
    } catch (Throwable e) {
      unexpected(e);
    }
  }

  /** Sends on a new connection. */
  void runNew() {
    try {
      if (startable() && send(clock.nanoTime())) {
        connect();
      }
    } catch (Throwable e) {
      unexpected(e);
    }
  }

  private void sendPooled(Connection c) {
    if (!startable()) {
      pool.release(c);
      return;
    }
    if (!c.channel().isActive()) {
      // closed by the server after it was taken: nothing was sent yet, so this is an ordinary new connection
      c.close();
      if (send(clock.nanoTime())) {
        connect();
      }
      return;
    }
    DefaultFullHttpRequest req = newRequest();
    long now = clock.nanoTime();
    if (!send(now)) {
      req.release();
      pool.release(c);
      return;
    }
    attach(c);
    reused = true;
    if (phase(Phase.CONNECTION_ACQUIRED, now)) {
      write(req);
    } else {
      req.release();
    }
  }

  /** The send was reported at {@code sendNanos} by an HTTP/2 attempt that handed this request over. */
  void alreadySent(long sendNanos) {
    sentAt = sendNanos;
  }

  private boolean send(long now) {
    if (sentAt != Long.MIN_VALUE) {
      sentAt(sentAt); // reported once, by the first attempt
      sentAt = Long.MIN_VALUE;
      return true;
    }
    return reportSend(now);
  }

  private void connect() {
    connecting = true;
    handshaking = false;
    InetAddress address = resolve(pool.key().host());
    if (address == null) {
      return;
    }
    connectStart = clock.nanoTime();
    if (!phase(Phase.CONNECT_START, connectStart)) {
      return;
    }
    Connection c = new Connection(pool);
    attach(c);
    if (!transport.pools().register(c)) {
      fail(Failure.of(ErrorCategory.CANCELLED, "request to " + authority + " not sent: the transport is closed"));
      return;
    }
    ChannelFuture f = transport.bootstraps().http1(loop, connectMillis, c)
        .connect(new InetSocketAddress(address, pool.key().port()));
    f.channel().closeFuture().addListener(cf -> transport.pools().forget(c));
    f.addListener((ChannelFuture cf) -> guarded(() -> connected(c, cf)));
  }

  private void connected(Connection c, ChannelFuture f) {
    if (!openingSucceeded(c, f)) {
      return;
    }
    long now = clock.nanoTime();
    if (c.ssl() == null) {
      established(now);
      return;
    }
    handshaking = true;
    if (!phase(Phase.SECURE_CONNECT_START, now)) {
      return;
    }
    // TCP and TLS share the connect budget (effective when the handshake has not started yet)
    long spentMillis = TimeUnit.NANOSECONDS.toMillis(Math.max(0, now - connectStart));
    c.ssl().setHandshakeTimeoutMillis(Math.max(1, connectMillis - spentMillis));
    c.ssl().handshakeFuture().addListener((Future<Channel> hf) -> guarded(() -> handshaken(c, hf)));
  }

  private void handshaken(Connection c, Future<Channel> hf) {
    if (!openingSucceeded(c, hf)) {
      return;
    }
    long now = clock.nanoTime();
    if (phase(Phase.SECURE_CONNECT_END, now)) {
      established(now);
    }
  }

  /** Whether a step of opening {@code c} succeeded and still matters; a failed one fails the exchange. */
  private boolean openingSucceeded(Connection c, Future<?> step) {
    if (isDone() || conn != c) {
      return false;
    }
    if (!step.isSuccess()) {
      connectFailed(step.cause());
      return false;
    }
    return true;
  }

  private void established(long now) {
    connecting = false;
    handshaking = false;
    if (phase(Phase.CONNECT_END, now) && phase(Phase.CONNECTION_ACQUIRED, now)) {
      write(newRequest());
    }
  }

  private void connectFailed(Throwable cause) {
    if (transport.isClosed()) {
      fail(Failure.of(ErrorCategory.CANCELLED, "request to " + authority + " cancelled: the transport was closed"));
    } else if (cause instanceof ConnectTimeoutException || cause instanceof SslHandshakeTimeoutException) {
      fail(Failure.timeout(TimeoutPhase.CONNECT, "connecting to " + authority + " took over "
          + connectMillis + " ms: " + NettyTransport.describe(cause)));
    } else {
      fail(Failure.of(ErrorCategory.CONNECT, (handshaking ? "TLS handshake with " : "connecting to ")
          + authority + " failed: " + NettyTransport.describe(unwrap(cause))));
    }
  }

  /** The request as Netty encodes it; built before {@code onSend} on a pooled connection, so the send is the write. */
  private DefaultFullHttpRequest newRequest() {
    byte[] body = request.body();
    DefaultFullHttpRequest req = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.valueOf(request.method()),
        request.pathAndQuery(), body.length == 0 ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(body));
    HttpHeaders h = req.headers();
    boolean hostGiven = false;
    for (OutboundRequest.Header header : request.headers()) {
      hostGiven |= header.name().equalsIgnoreCase("Host");
    }
    if (!hostGiven) {
      h.add(HttpHeaderNames.HOST, hostHeader());
    }
    for (OutboundRequest.Header header : request.headers()) {
      if (!header.name().equalsIgnoreCase("Content-Length")) {
        h.add(header.name(), header.value());
      }
    }
    if (!request.contentType().isEmpty()) {
      h.set(HttpHeaderNames.CONTENT_TYPE, request.contentType());
    }
    if (body.length > 0 || expectsBody(req.method())) {
      h.set(HttpHeaderNames.CONTENT_LENGTH, body.length);
    }
    return req;
  }

  private void write(DefaultFullHttpRequest req) {
    Connection c = conn;
    c.channel().writeAndFlush(req).addListener((ChannelFuture f) -> guarded(() -> written(c, f)));
  }

  private static boolean expectsBody(HttpMethod m) {
    return m == HttpMethod.POST || m == HttpMethod.PUT || m == HttpMethod.PATCH;
  }

  private void written(Connection c, ChannelFuture f) {
    if (isDone() || conn != c) {
      return;
    }
    if (!f.isSuccess()) {
      connectionLost(c, f.cause());
      return;
    }
    written(Phase.REQUEST_SENT, clock.nanoTime());
  }

  // ---- reading (called by the connection) ----

  /** Whether the request was a {@code HEAD}, whose response has no body whatever its headers say. */
  boolean isHeadRequest() {
    return "HEAD".equals(request.method());
  }

  /** The response's status line and headers were decoded from the read stamped {@code t}. */
  void onHead(int status, ResponseParser.Head headers, long t) {
    responseHead(status, name -> Optional.ofNullable(headers.get(name)), t);
  }

  // ---- failures ----

  void decodeFailed(Connection c, Throwable cause) {
    if (isDone() || conn != c) {
      return;
    }
    if (cause instanceof PrematureChannelClosureException) {
      connectionLost(c, cause);
    } else {
      fail(Failure.of(ErrorCategory.MALFORMED_STREAM, "malformed HTTP response from " + authority + ": "
          + NettyTransport.describe(cause)));
    }
  }

  void exceptionCaught(Connection c, Throwable cause) {
    if (isDone() || conn != c) {
      return;
    }
    Throwable root = unwrap(cause);
    if (connecting) {
      connectFailed(root);
    } else if (root instanceof IOException) {
      connectionLost(c, root);
    } else if (cause instanceof DecoderException) {
      fail(Failure.of(ErrorCategory.MALFORMED_STREAM, "malformed response from " + authority + ": "
          + NettyTransport.describe(root)));
    } else {
      fail(Failure.of(ErrorCategory.CLIENT, "unexpected " + NettyTransport.describe(root) + " in the exchange with "
          + authority));
    }
  }

  /**
   * The connection closed, or reading or writing it failed, before the response ended. A pooled
   * connection that fails before any response byte is one the server had closed while idle: the
   * request is sent once more on a new connection.
   */
  void connectionLost(Connection c, Throwable cause) {
    if (isDone() || conn != c) {
      return;
    }
    if (transport.isClosed()) {
      fail(Failure.of(ErrorCategory.CANCELLED, "request to " + authority + " cancelled: the transport was closed"));
      return;
    }
    if (connecting) {
      connectFailed(cause != null ? cause : new IOException("connection closed"));
      return;
    }
    if (retry("pooled connection to " + authority + " was closed by the server ("
        + (cause == null ? "closed" : NettyTransport.describe(cause)) + ") before any response byte", false)) {
      detach();
      c.close();
      connect();
      return;
    }
    // not retried (or onRetry threw, and the exchange has failed already)
    String when = !hasResponse() ? "before the response headers" : "before the response ended";
    fail(Failure.of(ErrorCategory.RESET, "connection to " + authority + " closed " + when
        + (cause == null ? "" : ": " + NettyTransport.describe(unwrap(cause)))));
  }

  private void attach(Connection c) {
    conn = c;
    c.exchange = this;
  }

  private void detach() {
    if (conn != null) {
      if (conn.exchange == this) {
        conn.exchange = null;
      }
      conn = null;
    }
  }

  private static Throwable unwrap(Throwable t) {
    return t instanceof DecoderException && t.getCause() != null ? t.getCause() : t;
  }

  @Override
  void leave(boolean failed) {
    Connection c = conn;
    detach();
    if (failed && c != null) {
      c.close();
    }
  }

  @Override
  Failure readTimedOut(long readMillis) {
    return Failure.timeout(TimeoutPhase.READ, "nothing read from " + authority + " for " + readMillis + " ms");
  }

  @Override
  public String toString() {
    return "Http1Exchange[" + request.method() + " " + authority + "]";
  }
}
