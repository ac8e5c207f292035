package io.infermark.core.transport.netty;

import io.infermark.core.capture.Failure;
import io.infermark.core.capture.Phase;
import io.infermark.core.capture.TimeoutPhase;
import io.infermark.core.transport.Cancellation;
import io.infermark.core.transport.OutboundRequest;
import io.infermark.core.transport.ResponseHandler;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * An exchange over HTTP/2: one stream of an {@link H2Connection} that its {@link H2Pool} shares
 * between requests. Its lifecycle (send, timer, terminal event, cancellation, retry) is
 * {@link Exchange}'s; here is what HTTP/2 adds: the request's HEADERS, the frames of the response as
 * the connection decodes them, a stream reset when the exchange ends on its own, and a read timeout
 * that is a write timeout while the server's flow-control window holds the request body back.
 */
final class H2Stream extends Exchange {

  /** Connection-specific fields HTTP/2 forbids (RFC 9113 §8.2.2); Host becomes {@code :authority}. */
  private static final Set<String> NOT_FORWARDED = Set.of("host", "connection", "keep-alive", "proxy-connection",
      "transfer-encoding", "upgrade", "content-length");

  // ---- confined to the pool's loop ----
  private boolean sent;
  private boolean requestWritten;
  H2Connection conn;
  int streamId;
  private boolean bodyStarted;

  H2Stream(NettyTransport transport, H2Pool pool, OutboundRequest request, ResponseHandler handler,
      Cancellation cancellation) {
    super(transport, pool.authority(), pool.loop(), request, handler, cancellation);
  }

  /**
   * The stream gives its request up to another path (HTTP/1.1) without reporting an outcome; false
   * when it has already ended.
   */
  boolean handOver() {
    if (isDone()) {
      return false;
    }
    markEnded();
    return true;
  }

  // ---- starting ----

  /**
   * Reports the send, unless the stream was cancelled or the transport closed meanwhile; false when
   * the stream has already ended. Called once, when the pool first places the stream.
   */
  boolean begin(boolean onEstablishedConnection) {
    if (!startable()) {
      return false;
    }
    if (sent) {
      return true; // a retry keeps the first send
    }
    sent = true;
    reused = onEstablishedConnection;
    return reportSend(clock.nanoTime());
  }

  /** The headers of the request as HTTP/2 sends them: pseudo-headers first, names lower-case. */
  Http2Headers headers() {
    byte[] body = request.body();
    DefaultHttp2Headers h = new DefaultHttp2Headers(false);
    String host = null;
    for (OutboundRequest.Header header : request.headers()) {
      if (header.name().equalsIgnoreCase("Host")) {
        host = header.value();
      }
    }
    h.method(AsciiString.of(request.method()))
        .scheme(request.secure() ? "https" : "http")
        .authority(host != null ? host : hostHeader())
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

  /** The stream was opened on {@code c} as stream {@code id}; its HEADERS (and body) are being written. */
  boolean opened(H2Connection c, int id, long now) {
    conn = c;
    streamId = id;
    return phase(Phase.CONNECTION_ACQUIRED, now);
  }

  void headersWritten() {
    written(Phase.REQUEST_HEADERS_SENT, clock.nanoTime());
  }

  /** The whole request (its HEADERS, and its body) is written: silence from now on is a read timeout. */
  void requestWritten() {
    requestWritten = true;
    written(Phase.REQUEST_SENT, clock.nanoTime());
  }

  // ---- reading (called by the connection, on the loop) ----

  /** The response's HEADERS arrived in the read stamped {@code t}. */
  void onHead(int status, Http2Headers headers, long t) {
    lastRead = t;
    responseStarted = true;
    if (phase(Phase.RESPONSE_HEADERS_START, t)) {
      responseHead(status, name -> lookup(headers, name), t);
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
    lastRead = t;
    int length = data.readableBytes();
    if (length == 0) {
      return MORE;
    }
    if (!bodyStarted) {
      bodyStarted = true;
      if (!phase(Phase.RESPONSE_BODY_START, t)) {
        return FAILED;
      }
    }
    if (data.hasArray()) {
      return deliver(data.array(), data.arrayOffset() + data.readerIndex(), length, t);
    }
    byte[] scratch = Connection.scratch();
    int at = data.readerIndex();
    while (length > 0) {
      int n = Math.min(length, scratch.length);
      data.getBytes(at, scratch, 0, n);
      int outcome = deliver(scratch, 0, n, t);
      if (outcome != MORE) {
        return outcome;
      }
      at += n;
      length -= n;
    }
    return MORE;
  }

  /** The response's trailers (a HEADERS frame after the response's, ending the stream) arrived at {@code t}. */
  void onTrailers(Http2Headers trailers, long t) {
    if (isDone()) {
      return;
    }
    lastRead = t;
    try {
      consumer().onTrailers(name -> lookup(trailers, name), t);
    } catch (Throwable e) {
      hostThrew("onTrailers", e);
    }
  }

  /** The response ended (END_STREAM) in the read stamped {@code t}. */
  void end(long t) {
    if (isDone()) {
      return;
    }
    markEnded();
    reportEnd(t);
  }

  // ---- failures ----

  /** Also forgets the connection and stream the request went out on: the caller dispatches it again. */
  @Override
  boolean retry(String why, boolean provablyUnprocessed) {
    if (!super.retry(why, provablyUnprocessed)) {
      return false;
    }
    conn = null;
    streamId = 0;
    requestWritten = false;
    return true;
  }

  /** Resets the stream when it failed on its own (a stream still waiting for its connection has none yet). */
  @Override
  void leave(boolean failed) {
    if (failed && conn != null) {
      conn.abandon(this);
    }
  }

  /** Silence on a stream whose request body is not written yet is the server's flow control, not its reply. */
  @Override
  Failure readTimedOut(long readMillis) {
    if (requestWritten) {
      return Failure.timeout(TimeoutPhase.READ, "nothing read from " + authority + " on HTTP/2 stream "
          + streamId + " for " + readMillis + " ms");
    }
    return Failure.timeout(TimeoutPhase.WRITE, "the request body to " + authority + " was not written in "
        + readMillis + " ms: the server's HTTP/2 flow-control window for stream "
        + streamId + " stayed closed (no WINDOW_UPDATE)");
  }

  @Override
  public String toString() {
    return "H2Stream[" + request.method() + " " + authority + (streamId > 0 ? " #" + streamId : "") + "]";
  }
}
