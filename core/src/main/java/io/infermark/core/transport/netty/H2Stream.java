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
import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One request–response exchange on an HTTP/2 stream: its state machine, its timer and its one
 * terminal event. Created on the caller's thread, then confined to its pool's I/O thread, the only
 * thread that calls the {@link ResponseHandler}. Its {@link Runnable#run()} is the timeout check.
 */
final class H2Stream implements Runnable {

  private static final Logger LOG = LoggerFactory.getLogger(H2Stream.class);

  /** Connection-specific fields HTTP/2 forbids (RFC 9113 §8.2.2); Host becomes {@code :authority}. */
  private static final Set<String> NOT_FORWARDED = Set.of("host", "connection", "keep-alive", "proxy-connection",
      "transfer-encoding", "upgrade", "content-length");

  private final NettyTransport transport;
  private final H2Pool pool;
  private final OutboundRequest request;
  private final ResponseHandler handler;
  private final Cancellation cancellation;
  final Clock clock;
  private final long readNanos;
  private final long callNanos;

  // ---- confined to the pool's loop ----
  private boolean done;
  private boolean sent;
  private long callDeadline;
  private boolean readArmed;
  private boolean requestWritten;
  private long lastProgress;
  private ScheduledFuture<?> timer;
  private long timerDue;
  H2Connection conn;
  int streamId;
  /** Sent on a connection that was already established when this request was sent. */
  private boolean reused;
  private boolean retried;
  private boolean responseStarted;
  private boolean bodyStarted;
  private BodyConsumer consumer;

  H2Stream(NettyTransport transport, H2Pool pool, OutboundRequest request, ResponseHandler handler,
      Cancellation cancellation) {
    this.transport = transport;
    this.pool = pool;
    this.request = request;
    this.handler = handler;
    this.cancellation = cancellation;
    this.clock = handler.clock();
    this.readNanos = NettyTransport.saturatedNanos(request.timeouts().read());
    this.callNanos = NettyTransport.saturatedNanos(request.timeouts().call());
  }

  OutboundRequest request() {
    return request;
  }

  /** When the send was reported ({@link ResponseHandler#onSend}). */
  long sendNanos() {
    return callDeadline - callNanos;
  }

  ResponseHandler handler() {
    return handler;
  }

  Cancellation cancellation() {
    return cancellation;
  }

  /**
   * The stream gives its request up to another path (HTTP/1.1) without reporting an outcome; false
   * when it has already ended.
   */
  boolean handOver() {
    if (done) {
      return false;
    }
    done = true;
    cancelTimer();
    return true;
  }

  boolean isDone() {
    return done;
  }

  boolean hasResponse() {
    return consumer != null;
  }

  int connectMillis() {
    return (int) Math.max(1, Math.min(Integer.MAX_VALUE, request.timeouts().connect().toMillis()));
  }

  // ---- starting ----

  /**
   * Reports the send, unless the stream was cancelled or the transport closed meanwhile; false when
   * the stream has already ended. Called once, when the pool first places the stream.
   */
  boolean begin(boolean onEstablishedConnection) {
    if (done) {
      return false;
    }
    if (transport.isClosed()) {
      failNow(Failure.of(ErrorCategory.CANCELLED, "request to " + pool.authority() + " not sent: the transport is closed"));
      return false;
    }
    if (cancellation.isCancelled()) {
      failNow(Failure.of(ErrorCategory.CANCELLED, "request to " + pool.authority() + " cancelled before it was sent"));
      return false;
    }
    if (sent) {
      return true; // a retry keeps the first send
    }
    sent = true;
    reused = onEstablishedConnection;
    long now = clock.nanoTime();
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

  /** The headers of the request as HTTP/2 sends them: pseudo-headers first, names lower-case. */
  Http2Headers headers() {
    byte[] body = request.body();
    DefaultHttp2Headers h = new DefaultHttp2Headers(false);
    String authority = null;
    for (OutboundRequest.Header header : request.headers()) {
      if (header.name().equalsIgnoreCase("Host")) {
        authority = header.value();
      }
    }
    h.method(AsciiString.of(request.method()))
        .scheme(request.secure() ? "https" : "http")
        .authority(authority != null ? authority : hostHeader())
        .path(request.pathAndQuery());
    for (OutboundRequest.Header header : request.headers()) {
      String name = header.name().toLowerCase(Locale.ROOT);
      if (NOT_FORWARDED.contains(name) || (name.equals("te") && !header.value().equalsIgnoreCase("trailers"))) {
        continue;
      }
      h.add(AsciiString.of(name), header.value());
    }
    if (!request.contentType().isEmpty()) {
      h.set(AsciiString.of("content-type"), request.contentType());
    }
    String m = request.method();
    if (body.length > 0 || m.equals("POST") || m.equals("PUT") || m.equals("PATCH")) {
      h.setInt(AsciiString.of("content-length"), body.length);
    }
    return h;
  }

  private String hostHeader() {
    String host = request.url().getHost();
    int port = request.url().getPort();
    return port < 0 || port == (request.secure() ? 443 : 80) ? host : host + ":" + port;
  }

  /** A connection milestone; false when the handler threw and the stream has therefore failed. */
  boolean phase(Phase p, long t) {
    if (done) {
      return false;
    }
    try {
      handler.onPhase(p, t);
      return true;
    } catch (Throwable e) {
      hostThrew("onPhase(" + p + ")", e);
      return false;
    }
  }

  /** The stream was opened on {@code c} as stream {@code id}; its HEADERS (and body) are being written. */
  boolean opened(H2Connection c, int id, long now) {
    conn = c;
    streamId = id;
    return phase(Phase.CONNECTION_ACQUIRED, now);
  }

  void headersWritten() {
    long now = clock.nanoTime();
    lastProgress = now;
    readArmed = true;
    if (phase(Phase.REQUEST_HEADERS_SENT, now)) {
      armTimer();
    }
  }

  void requestWritten() {
    long now = clock.nanoTime();
    lastProgress = now;
    requestWritten = true;
    if (phase(Phase.REQUEST_SENT, now)) {
      armTimer();
    }
  }

  // ---- reading (called by the connection, on the loop) ----

  /** The response's HEADERS arrived in the read stamped {@code t}. */
  void onHead(int status, Http2Headers headers, long t) {
    lastProgress = t;
    responseStarted = true;
    if (!phase(Phase.RESPONSE_HEADERS_START, t) || !phase(Phase.RESPONSE_HEADERS_END, t)) {
      return;
    }
    BodyConsumer c;
    try {
      c = handler.onResponse(status, name -> lookup(headers, name), t);
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

  /** An interim (1xx) response arrived: it proves the server is alive but is not the response. */
  void onInterim(long t) {
    lastProgress = t;
    if (!responseStarted) {
      responseStarted = true;
      phase(Phase.RESPONSE_HEADERS_START, t);
    }
  }

  private static Optional<String> lookup(Http2Headers headers, String name) {
    CharSequence v = headers.get(AsciiString.of(name).toLowerCase());
    return v == null ? Optional.empty() : Optional.of(v.toString());
  }

  /**
   * Hands a DATA frame's bytes, read at {@code t}, to the consumer. Returns {@link Exchange#DONE}
   * when the consumer is done, {@link Exchange#FAILED} when it threw; the stream has then ended.
   */
  int deliver(ByteBuf data, long t) {
    lastProgress = t;
    int length = data.readableBytes();
    if (length == 0) {
      return Exchange.MORE;
    }
    if (!bodyStarted) {
      bodyStarted = true;
      if (!phase(Phase.RESPONSE_BODY_START, t)) {
        return Exchange.FAILED;
      }
    }
    try {
      boolean enough;
      if (data.hasArray()) {
        enough = consumer.onBytes(data.array(), data.arrayOffset() + data.readerIndex(), length, t);
      } else {
        byte[] scratch = Connection.scratch();
        int at = data.readerIndex();
        enough = false;
        while (length > 0 && !enough) {
          int n = Math.min(length, scratch.length);
          data.getBytes(at, scratch, 0, n);
          enough = consumer.onBytes(scratch, 0, n, t);
          at += n;
          length -= n;
        }
      }
      if (enough) {
        markEnded();
        return Exchange.DONE;
      }
      return Exchange.MORE;
    } catch (Throwable e) {
      hostThrew("onBytes", e);
      return Exchange.FAILED;
    }
  }

  /** The response's trailers (a HEADERS frame after the response's, ending the stream) arrived at {@code t}. */
  void onTrailers(Http2Headers trailers, long t) {
    if (done) {
      return;
    }
    lastProgress = t;
    try {
      consumer.onTrailers(name -> lookup(trailers, name), t);
    } catch (Throwable e) {
      hostThrew("onTrailers", e);
    }
  }

  /** The response ended (END_STREAM) in the read stamped {@code t}. */
  void end(long t) {
    if (done) {
      return;
    }
    markEnded();
    try {
      consumer.onEnd(t);
    } catch (Throwable e) {
      LOG.debug("body consumer threw in onEnd", e);
      report(Failure.of(ErrorCategory.CLIENT, "body consumer threw " + NettyTransport.describe(e) + " in onEnd"));
    }
  }

  private void markEnded() {
    done = true;
    cancelTimer();
  }

  // ---- failures ----

  /**
   * The stream can be sent once more on another connection: the server provably did not process it
   * (GOAWAY above it, REFUSED_STREAM), or the pooled connection it went out on was closed before any
   * response byte. Reports the retry; the caller re-dispatches. False when it may not be retried.
   */
  boolean retry(String why, boolean provablyUnprocessed) {
    if (done || responseStarted || retried || (!provablyUnprocessed && !reused)) {
      return false;
    }
    retried = true;
    LOG.debug("{}; sending once more on another connection", why);
    try {
      handler.onRetry(why, clock.nanoTime());
    } catch (Throwable e) {
      hostThrew("onRetry", e);
      return false;
    }
    conn = null;
    streamId = 0;
    readArmed = false;
    requestWritten = false;
    reused = false;
    return true;
  }

  /** What a failure before the response ended is called: timing out or being cancelled take precedence. */
  void fail(Failure failure) {
    if (done) {
      return;
    }
    H2Connection c = conn;
    failNow(failure);
    if (c != null) {
      c.abandon(this);
    }
  }

  /** Ends the stream as {@code failure} without touching its connection (the connection reported it). */
  void failNow(Failure failure) {
    if (done) {
      return;
    }
    done = true;
    cancelTimer();
    report(failure);
  }

  /** The caller's cancellation fired; may run on any thread. */
  void cancelFromAnyThread() {
    try {
      pool.loop().execute(() -> guarded(() -> fail(Failure.of(ErrorCategory.CANCELLED, "request to "
          + pool.authority() + " cancelled by the caller"))));
    } catch (RejectedExecutionException e) {
      // the I/O thread is gone; close() has already ended the stream
    }
  }

  private void report(Failure failure) {
    try {
      handler.onFailure(failure, clock.nanoTime());
    } catch (Throwable e) {
      LOG.warn("response handler threw {} in onFailure for a request to {}", NettyTransport.describe(e),
          pool.authority());
    }
  }

  void guarded(Runnable step) {
    try {
      step.run();
    } catch (Throwable e) {
      LOG.warn("unexpected failure in an HTTP/2 exchange with {}", pool.authority(), e);
      fail(Failure.of(ErrorCategory.CLIENT, "unexpected " + NettyTransport.describe(e) + " in the exchange with "
          + pool.authority()));
    }
  }

  private void hostThrew(String callback, Throwable e) {
    LOG.debug("response handler threw in {}", callback, e);
    fail(Failure.of(ErrorCategory.CLIENT, "response handler threw " + NettyTransport.describe(e) + " in " + callback));
  }

  // ---- timeouts: one scheduled check, moved only when it would fire too late ----

  private void armTimer() {
    long due = readArmed && lastProgress + readNanos - callDeadline < 0 ? lastProgress + readNanos : callDeadline;
    if (timer != null) {
      if (timerDue - due <= 0) {
        return;
      }
      timer.cancel(false);
    }
    timerDue = due;
    EventLoop loop = pool.loop();
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
    } else if (readArmed && now - lastProgress >= readNanos) {
      if (requestWritten) {
        fail(Failure.timeout(TimeoutPhase.READ, "nothing read from " + pool.authority() + " on HTTP/2 stream "
            + streamId + " for " + TimeUnit.NANOSECONDS.toMillis(readNanos) + " ms"));
      } else {
        fail(Failure.timeout(TimeoutPhase.WRITE, "the request body to " + pool.authority() + " was not written in "
            + TimeUnit.NANOSECONDS.toMillis(readNanos) + " ms: the server's HTTP/2 flow-control window for stream "
            + streamId + " stayed closed (no WINDOW_UPDATE)"));
      }
    } else {
      armTimer();
    }
  }

  @Override
  public String toString() {
    return "H2Stream[" + request.method() + " " + pool.authority() + (streamId > 0 ? " #" + streamId : "") + "]";
  }
}
