package io.infermark.core.transport.netty;

import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.Phase;
import io.infermark.core.capture.TimeoutPhase;
import io.infermark.core.time.Clock;
import io.infermark.core.transport.BodyConsumer;
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
import io.netty.util.NetUtil;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ScheduledFuture;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.Optional;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One request–response exchange: its state machine, its timer and its one terminal event. Created
 * on the caller's thread, then confined to one I/O thread (its {@link #loop}), which is the only
 * thread that calls the {@link ResponseHandler}; the {@code done} flag on that thread is what makes
 * the terminal event happen exactly once. Its {@link Runnable#run()} is the timeout check.
 */
final class Exchange implements Runnable {

  static final int MORE = 0;
  static final int DONE = 1;
  static final int FAILED = 2;

  private static final Logger LOG = LoggerFactory.getLogger(Exchange.class);

  private final NettyTransport transport;
  private final HostPool pool;
  private final EventLoop loop;
  private final OutboundRequest request;
  private final ResponseHandler handler;
  private final Cancellation cancellation;
  final Clock clock;
  private final long readNanos;
  private final long callNanos;
  private final int connectMillis;

  // ---- confined to loop ----
  private long sentAt = Long.MIN_VALUE;
  private boolean done;
  private long callDeadline;
  private boolean readArmed;
  private long lastRead;
  private ScheduledFuture<?> timer;
  private long timerDue;
  private Connection conn;
  private boolean connecting;
  private boolean handshaking;
  private long connectStart;
  private boolean reused;
  private boolean retried;
  private boolean responseStarted;
  private BodyConsumer consumer;

  Exchange(NettyTransport transport, HostPool pool, EventLoop loop, OutboundRequest request, ResponseHandler handler,
      Cancellation cancellation) {
    this.transport = transport;
    this.pool = pool;
    this.loop = loop;
    this.request = request;
    this.handler = handler;
    this.cancellation = cancellation;
    this.clock = handler.clock();
    this.readNanos = NettyTransport.saturatedNanos(request.timeouts().read());
    this.callNanos = NettyTransport.saturatedNanos(request.timeouts().call());
    this.connectMillis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, request.timeouts().connect().toMillis()));
  }

  /** Reports a request that never reached an I/O thread; runs on the caller's thread. */
  static void failUnstarted(ResponseHandler handler, String authority, String why) {
    try {
      handler.onFailure(Failure.of(ErrorCategory.CANCELLED, "request to " + authority + " not sent: " + why),
          handler.clock().nanoTime());
    } catch (RuntimeException e) {
      LOG.warn("response handler threw {} in onFailure", NettyTransport.describe(e));
    }
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

  private boolean startable() {
    if (done) {
      return false; // cancelled (and reported) while it waited for a connection
    }
    if (transport.isClosed()) {
      done = true;
      report(Failure.of(ErrorCategory.CANCELLED, "request to " + pool.authority() + " not sent: the transport is closed"));
      return false;
    }
    if (cancellation.isCancelled()) {
      done = true;
      report(Failure.of(ErrorCategory.CANCELLED, "request to " + pool.authority() + " cancelled before it was sent"));
      return false;
    }
    return true;
  }

  /** The send was reported at {@code sendNanos} by an HTTP/2 attempt that handed this request over. */
  void alreadySent(long sendNanos) {
    sentAt = sendNanos;
  }

  private boolean send(long now) {
    if (sentAt != Long.MIN_VALUE) {
      callDeadline = sentAt + callNanos; // reported once, by the first attempt
      sentAt = Long.MIN_VALUE;
      armTimer();
      return true;
    }
    try {
      handler.onSend(now);
    } catch (Throwable t) {
      hostThrew("onSend", t);
      return false;
    }
    callDeadline = now + callNanos;
    armTimer();
    return true;
  }

  private void connect() {
    connecting = true;
    handshaking = false;
    responseStarted = false;
    String host = pool.key().host();
    InetAddress address;
    if (NetUtil.isValidIpV4Address(host) || NetUtil.isValidIpV6Address(host)) {
      address = NetUtil.createInetAddressFromIpAddressString(host);
    } else {
      if (!phase(Phase.DNS_START, clock.nanoTime())) {
        return;
      }
      try {
        address = InetAddress.getByName(host);
      } catch (UnknownHostException e) {
        fail(Failure.of(ErrorCategory.CONNECT, "cannot resolve " + pool.authority() + ": " + NettyTransport.describe(e)));
        return;
      }
      if (!phase(Phase.DNS_END, clock.nanoTime())) {
        return;
      }
    }
    connectStart = clock.nanoTime();
    if (!phase(Phase.CONNECT_START, connectStart)) {
      return;
    }
    Connection c = new Connection(pool);
    attach(c);
    if (!transport.register(c)) {
      fail(Failure.of(ErrorCategory.CANCELLED, "request to " + pool.authority() + " not sent: the transport is closed"));
      return;
    }
    ChannelFuture f = transport.bootstrap(loop, connectMillis, c)
        .connect(new InetSocketAddress(address, pool.key().port()));
    f.channel().closeFuture().addListener(cf -> transport.forget(c));
    f.addListener((ChannelFuture cf) -> guarded(() -> connected(c, cf)));
  }

  private void connected(Connection c, ChannelFuture f) {
    if (done || conn != c) {
      return;
    }
    if (!f.isSuccess()) {
      connectFailed(f.cause());
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
    if (done || conn != c) {
      return;
    }
    if (!hf.isSuccess()) {
      connectFailed(hf.cause());
      return;
    }
    long now = clock.nanoTime();
    if (phase(Phase.SECURE_CONNECT_END, now)) {
      established(now);
    }
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
      fail(Failure.of(ErrorCategory.CANCELLED, "request to " + pool.authority() + " cancelled: the transport was closed"));
    } else if (cause instanceof ConnectTimeoutException || cause instanceof SslHandshakeTimeoutException) {
      fail(Failure.timeout(TimeoutPhase.CONNECT, "connecting to " + pool.authority() + " took over "
          + connectMillis + " ms: " + NettyTransport.describe(cause)));
    } else {
      fail(Failure.of(ErrorCategory.CONNECT, (handshaking ? "TLS handshake with " : "connecting to ")
          + pool.authority() + " failed: " + NettyTransport.describe(unwrap(cause))));
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

  private String hostHeader() {
    String host = request.url().getHost();
    int port = request.url().getPort();
    return port < 0 || port == (request.secure() ? 443 : 80) ? host : host + ":" + port;
  }

  private void written(Connection c, ChannelFuture f) {
    if (done || conn != c) {
      return;
    }
    if (!f.isSuccess()) {
      connectionLost(c, f.cause());
      return;
    }
    long now = clock.nanoTime();
    lastRead = now;
    readArmed = true;
    if (phase(Phase.REQUEST_SENT, now)) {
      armTimer();
    }
  }

  // ---- reading (called by the connection) ----

  /** Bytes of the response arrived at {@code t}: feeds the read timeout and the first-byte phase. */
  void bytesRead(long t) {
    lastRead = t;
    if (!responseStarted) {
      responseStarted = true;
      phase(Phase.RESPONSE_HEADERS_START, t);
    }
  }

  boolean hasResponse() {
    return consumer != null;
  }

  /** Whether the request was a {@code HEAD}, whose response has no body whatever its headers say. */
  boolean isHeadRequest() {
    return "HEAD".equals(request.method());
  }

  void onHead(int status, ResponseParser.Head headers, long t) {
    if (!phase(Phase.RESPONSE_HEADERS_END, t)) {
      return;
    }
    BodyConsumer c;
    try {
      c = handler.onResponse(status, name -> Optional.ofNullable(headers.get(name)), t);
    } catch (Throwable e) {
      hostThrew("onResponse", e);
      return;
    }
    if (c == null) {
      fail(Failure.of(ErrorCategory.CLIENT, "response handler returned no BodyConsumer from onResponse"));
      return;
    }
    consumer = c;
  }

  /**
   * Hands body bytes to the consumer. Returns {@link #DONE} when the consumer is done (the exchange is
   * then ended and detached), {@link #FAILED} when it threw (the exchange has failed).
   */
  int deliver(byte[] bytes, int offset, int length, long t) {
    if (length == 0) {
      return MORE;
    }
    boolean enough;
    try {
      enough = consumer.onBytes(bytes, offset, length, t);
    } catch (Throwable e) {
      hostThrew("onBytes", e);
      return FAILED;
    }
    if (enough) {
      markEnded();
      return DONE;
    }
    return MORE;
  }

  /** The exchange has its terminal event: stop the timer and leave the connection. */
  void markEnded() {
    done = true;
    cancelTimer();
    detach();
  }

  /** The body ended at {@code t}; after {@link #markEnded()} and the connection's release. */
  void reportEnd(long t) {
    try {
      consumer.onEnd(t);
    } catch (Throwable e) {
      // the handler may not have recorded the end: make sure the request still has an outcome
      LOG.debug("body consumer threw in onEnd", e);
      report(Failure.of(ErrorCategory.CLIENT, "body consumer threw " + NettyTransport.describe(e) + " in onEnd"));
    }
  }

  // ---- failures ----

  void decodeFailed(Connection c, Throwable cause) {
    if (done || conn != c) {
      return;
    }
    if (cause instanceof PrematureChannelClosureException) {
      connectionLost(c, cause);
    } else {
      fail(Failure.of(ErrorCategory.MALFORMED_STREAM, "malformed HTTP response from " + pool.authority() + ": "
          + NettyTransport.describe(cause)));
    }
  }

  void exceptionCaught(Connection c, Throwable cause) {
    if (done || conn != c) {
      return;
    }
    Throwable root = unwrap(cause);
    if (connecting) {
      connectFailed(root);
    } else if (root instanceof IOException) {
      connectionLost(c, root);
    } else if (cause instanceof DecoderException) {
      fail(Failure.of(ErrorCategory.MALFORMED_STREAM, "malformed response from " + pool.authority() + ": "
          + NettyTransport.describe(root)));
    } else {
      fail(Failure.of(ErrorCategory.CLIENT, "unexpected " + NettyTransport.describe(root) + " in the exchange with "
          + pool.authority()));
    }
  }

  /**
   * The connection closed, or reading or writing it failed, before the response ended. A pooled
   * connection that fails before any response byte is one the server had closed while idle: the
   * request is sent once more on a new connection.
   */
  void connectionLost(Connection c, Throwable cause) {
    if (done || conn != c) {
      return;
    }
    if (transport.isClosed()) {
      fail(Failure.of(ErrorCategory.CANCELLED, "request to " + pool.authority() + " cancelled: the transport was closed"));
      return;
    }
    if (connecting) {
      connectFailed(cause != null ? cause : new IOException("connection closed"));
      return;
    }
    if (reused && !responseStarted && !retried) {
      retried = true;
      String why = "pooled connection to " + pool.authority() + " was closed by the server ("
          + (cause == null ? "closed" : NettyTransport.describe(cause)) + ") before any response byte";
      LOG.debug("{}; sending once more on a new connection", why);
      try {
        handler.onRetry(why, clock.nanoTime());
      } catch (Throwable e) {
        hostThrew("onRetry", e);
        return;
      }
      detach();
      c.close();
      reused = false;
      readArmed = false;
      connect();
      return;
    }
    String when = consumer == null ? "before the response headers" : "before the response ended";
    fail(Failure.of(ErrorCategory.RESET, "connection to " + pool.authority() + " closed " + when
        + (cause == null ? "" : ": " + NettyTransport.describe(unwrap(cause)))));
  }

  /** The caller's cancellation fired; may run on any thread. */
  void cancelFromAnyThread() {
    try {
      loop.execute(() -> guarded(this::cancel));
    } catch (RejectedExecutionException e) {
      // the I/O thread is gone; close() has already ended the exchange
    }
  }

  private void cancel() {
    if (!done) {
      fail(Failure.of(ErrorCategory.CANCELLED, "request to " + pool.authority() + " cancelled by the caller"));
    }
  }

  /** Ends the exchange with {@code failure} and closes its connection. */
  private void fail(Failure failure) {
    if (done) {
      return;
    }
    done = true;
    cancelTimer();
    Connection c = conn;
    detach();
    if (c != null) {
      c.close();
    }
    report(failure);
  }

  private void report(Failure failure) {
    try {
      handler.onFailure(failure, clock.nanoTime());
    } catch (Throwable e) {
      LOG.warn("response handler threw {} in onFailure for a request to {}", NettyTransport.describe(e),
          pool.authority());
    }
  }

  private void guarded(Runnable step) {
    try {
      step.run();
    } catch (Throwable e) {
      unexpected(e);
    }
  }

  /** A bug or a broken invariant in the transport itself: the request still gets its outcome. */
  private void unexpected(Throwable e) {
    LOG.warn("unexpected failure in an exchange with {}", pool.authority(), e);
    fail(Failure.of(ErrorCategory.CLIENT, "unexpected " + NettyTransport.describe(e) + " in the exchange with "
        + pool.authority()));
  }

  private void hostThrew(String callback, Throwable e) {
    LOG.debug("response handler threw in {}", callback, e);
    fail(Failure.of(ErrorCategory.CLIENT, "response handler threw " + NettyTransport.describe(e) + " in " + callback));
  }

  /** Reports a phase; false when the handler threw and the exchange has therefore failed. */
  private boolean phase(Phase p, long t) {
    try {
      handler.onPhase(p, t);
      return true;
    } catch (Throwable e) {
      hostThrew("onPhase(" + p + ")", e);
      return false;
    }
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

  // ---- timeouts: one scheduled check, moved only when it would fire too late ----

  private void armTimer() {
    long due = readArmed && lastRead + readNanos - callDeadline < 0 ? lastRead + readNanos : callDeadline;
    if (timer != null) {
      if (timerDue - due <= 0) {
        return;
      }
      timer.cancel(false);
    }
    timerDue = due;
    timer = loop.schedule(this, Math.max(0, due - clock.nanoTime()), TimeUnit.NANOSECONDS);
  }

  private void cancelTimer() {
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
  }

  /** The timeout check. */
  @Override
  public void run() {
    guarded(this::checkTimeouts);
  }

  private void checkTimeouts() {
    timer = null;
    if (done) {
      return;
    }
    long now = clock.nanoTime();
    if (now - callDeadline >= 0) {
      fail(Failure.timeout(TimeoutPhase.CALL, "the exchange with " + pool.authority() + " took over "
          + TimeUnit.NANOSECONDS.toMillis(callNanos) + " ms"));
    } else if (readArmed && now - lastRead >= readNanos) {
      fail(Failure.timeout(TimeoutPhase.READ, "nothing read from " + pool.authority() + " for "
          + TimeUnit.NANOSECONDS.toMillis(readNanos) + " ms"));
    } else {
      armTimer();
    }
  }
}
